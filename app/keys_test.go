package app

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestParseKey(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))) + " alice@laptop"
	fp := ssh.FingerprintSHA256(sshPub)
	dir := t.TempDir()
	pubFile := filepath.Join(dir, "id_ed25519.pub")
	if err := os.WriteFile(pubFile, []byte("# alice\n\n"+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	privFile := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(privFile, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nxx\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, arg, wantErr string
	}{
		{"line", line, ""},
		{"line with spaces around", "  " + line + "\n", ""},
		{"pub file", pubFile, ""},
		{"private key file", privFile, "is a private key"},
		{"missing pub file", filepath.Join(dir, "nope.pub"), "no such file"},
		{"garbage", "ssh-ed25519 AAAAnotbase64", "not an SSH public key"},
		{"empty", "", "not an SSH public key"},
		{"options", `command="rm -rf /" ` + line, "options"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParseKey(tc.arg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseKey: %v, want an error with %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.Fingerprint != fp || k.Key != line {
				t.Fatalf("ParseKey = %+v, want %s %q", k, fp, line)
			}
		})
	}
	if got, err := KeyRef(fp); err != nil || got != fp {
		t.Fatalf("KeyRef(fingerprint) = %q, %v", got, err)
	}
	if got, err := KeyRef(pubFile); err != nil || got != fp {
		t.Fatalf("KeyRef(pub file) = %q, %v", got, err)
	}
}
