package toolschema

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// assertedFormats are the formats checked where the draft asserts format
// (draft-07 and draft-06); any other format is a note to the reader, as
// every format is under 2019-09 and 2020-12.
var assertedFormats = map[string]func(string) bool{
	"date":      isDate,
	"time":      isTime,
	"date-time": isDateTime,
	"ipv4":      isIPv4,
	"ipv6":      isIPv6,
	"uuid":      isUUID,
	"regex":     isRegexp,
}

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// isTime is RFC 3339's full-time: hh:mm:ss[.frac](Z|±hh:mm), a leap second
// only at 23:59:60 UTC.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, okH := twoDigits(s[0:2])
	m, okM := twoDigits(s[3:5])
	sec, okS := twoDigits(s[6:8])
	if !okH || !okM || !okS || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		digits := len(frac) - len(strings.TrimLeft(frac, "0123456789"))
		if digits == 0 {
			return false
		}
		rest = frac[digits:]
	}
	if rest != "z" && rest != "Z" {
		if len(rest) != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':' {
			return false
		}
		zh, okZH := twoDigits(rest[1:3])
		zm, okZM := twoDigits(rest[4:6])
		if !okZH || !okZM || zh > 23 || zm > 59 {
			return false
		}
		sign := 1
		if rest[0] == '+' {
			sign = -1
		}
		hm := h*60 + m + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60%24, hm%60
	}
	return sec < 60 || (h == 23 && m == 59)
}

func twoDigits(s string) (int, bool) {
	if len(s) != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0, false
	}
	n, _ := strconv.Atoi(s)
	return n, true
}

func isDateTime(s string) bool {
	return len(s) >= 20 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isTime(s[11:])
}

func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

func isIPv6(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

// isUUID is 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

func isRegexp(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}
