package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// s3Attempts is how many times a request is tried: 5xx answers,
// throttling and dropped connections are retried with exponential backoff
// and jitter (the SDK's standard retryer).
const s3Attempts = 5

// s3MaxBackoff caps the wait between attempts (tests shorten it).
var s3MaxBackoff = 20 * time.Second

// s3Timeout bounds one request (tests shorten it).
var s3Timeout = 60 * time.Second

// IsS3 says whether spec names an S3 prefix.
func IsS3(spec string) bool { return strings.HasPrefix(spec, "s3://") }

// splitS3 splits s3://bucket/prefix.
func splitS3(spec string) (bucket, prefix string, err error) {
	rest := strings.TrimPrefix(spec, "s3://")
	bucket, prefix, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%s: no bucket (want s3://BUCKET/PREFIX)", spec)
	}
	return bucket, prefix, nil
}

// readStats count what a source read: bytes and requests (ReadAt calls
// on local files, GETs and LISTs on S3).
type readStats struct {
	bytes    atomic.Int64
	requests atomic.Int64
}

// newS3Client is a client with the standard AWS credential chain
// (environment, shared config and credentials files, SSO, web identity,
// container and instance roles); endpoint, when set, is an S3-compatible
// service (MinIO, R2, GCS) addressed path-style.
func newS3Client(ctx context.Context, endpoint string) (*s3.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = s3Attempts
			o.MaxBackoff = s3MaxBackoff
		})
	}))
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %s", oneLine(err))
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.UsePathStyle = true
		}
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	}), nil
}

// s3Objects lists the Parquet objects under spec (a key ending .parquet is
// that one object; keys with a path part starting with . or _ are skipped).
func s3Objects(ctx context.Context, spec, endpoint string, n *readStats) ([]object, error) {
	bucket, prefix, err := splitS3(spec)
	if err != nil {
		return nil, err
	}
	client, err := newS3Client(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	var out []object
	add := func(key string, size int64, etag string) {
		etag = strings.Trim(etag, `"`)
		out = append(out, object{name: "s3://" + bucket + "/" + key, size: size, version: etag,
			open: func() (io.ReaderAt, io.Closer, error) {
				return &s3ReaderAt{ctx: ctx, client: client, bucket: bucket, key: key, etag: etag, size: size, n: n}, io.NopCloser(nil), nil
			}})
	}
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for pages.HasMorePages() {
		rctx, cancel := context.WithTimeout(ctx, s3Timeout)
		page, err := pages.NextPage(rctx)
		cancel()
		n.requests.Add(1)
		if err != nil {
			return nil, s3Error(err, bucket, prefix)
		}
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			if !strings.HasSuffix(strings.ToLower(key), ".parquet") || hiddenPart(strings.TrimPrefix(key, prefix)) {
				continue
			}
			add(key, aws.ToInt64(o.Size), aws.ToString(o.ETag))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no .parquet objects under this prefix", spec)
	}
	return out, nil
}

func hiddenPart(rel string) bool {
	for _, p := range strings.Split(rel, "/") {
		if strings.HasPrefix(p, ".") || strings.HasPrefix(p, "_") {
			return true
		}
	}
	return false
}

// storeError is an object store's failure, worded to name the object: it
// is passed up as it is, not wrapped again with file and row group.
type storeError struct{ msg string }

func (e *storeError) Error() string { return e.msg }

// s3Error is one line naming the bucket and key.
func s3Error(err error, bucket, key string) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return &storeError{s3Message(err, bucket, key).Error()}
}

func s3Message(err error, bucket, key string) error {
	where := "s3://" + bucket + "/" + key
	var re *awshttp.ResponseError
	status := 0
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	code := ""
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	var ne net.Error
	switch {
	case status == 403 || code == "AccessDenied" || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch":
		return fmt.Errorf("%s: access denied (403 %s): check the credentials and the bucket's policy", where, code)
	case code == "NoSuchBucket":
		return fmt.Errorf("s3://%s: no such bucket (404)", bucket)
	case status == 404 || code == "NoSuchKey" || code == "NotFound":
		return fmt.Errorf("%s: no such object (404)", where)
	case status == 412 || code == "PreconditionFailed":
		return fmt.Errorf("%s: the object changed while it was being read (its ETag no longer matches): sample again", where)
	case status == 429 || status == 503 || code == "SlowDown" || code == "Throttling" || code == "RequestLimitExceeded":
		return fmt.Errorf("%s: throttled (%d %s) after %d attempts: try again later", where, status, code, s3Attempts)
	case status >= 500:
		return fmt.Errorf("%s: server error %d %s after %d attempts", where, status, code, s3Attempts)
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%s: timed out after %s", where, s3Timeout)
	case errors.Is(err, context.Canceled):
		return err
	}
	return fmt.Errorf("%s: %s", where, oneLine(err))
}

// s3ReaderAt reads one object with ranged GETs. Before a column chunk or a
// set of pages is decoded, prefetch fetches exactly those byte ranges (one
// GET per range, adjacent ranges merged); reads inside them are served from
// memory, reads outside are GETs of exactly the bytes asked for.
type s3ReaderAt struct {
	ctx         context.Context // the command's: ctrl+c stops a GET
	client      *s3.Client
	bucket, key string
	etag        string
	size        int64
	n           *readStats

	mu     sync.Mutex
	blocks []block
	err    error // the first request that failed
}

// failed is the first failed request's error (the Parquet reader wraps
// what ReadAt returns in its own words).
func (r *s3ReaderAt) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *s3ReaderAt) fail(err error) error {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	return err
}

type block struct {
	off  int64
	data []byte
}

func (r *s3ReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.size {
		return 0, io.EOF
	}
	r.mu.Lock()
	for _, b := range r.blocks {
		if off >= b.off && off+int64(len(p)) <= b.off+int64(len(b.data)) {
			n := copy(p, b.data[off-b.off:])
			r.mu.Unlock()
			return n, nil
		}
	}
	r.mu.Unlock()
	want := min(int64(len(p)), r.size-off)
	data, err := r.get(off, want)
	if err != nil {
		return 0, err
	}
	n := copy(p, data)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// get fetches length bytes at off.
func (r *s3ReaderAt) get(off, length int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(r.ctx, s3Timeout)
	defer cancel()
	in := &s3.GetObjectInput{Bucket: aws.String(r.bucket), Key: aws.String(r.key),
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, off+length-1))}
	if r.etag != "" {
		in.IfMatch = aws.String(`"` + r.etag + `"`)
	}
	r.n.requests.Add(1)
	out, err := r.client.GetObject(ctx, in)
	if err != nil {
		return nil, r.fail(s3Error(err, r.bucket, r.key))
	}
	defer out.Body.Close()
	data := make([]byte, length)
	k, err := io.ReadFull(out.Body, data)
	r.n.bytes.Add(int64(k))
	if err != nil {
		return nil, r.fail(s3Error(err, r.bucket, r.key))
	}
	return data, nil
}

// prefetch replaces what is held with the given byte ranges.
func (r *s3ReaderAt) prefetch(ranges [][2]int64) error {
	merged := mergeRanges(ranges, r.size)
	blocks := make([]block, 0, len(merged))
	for _, rg := range merged {
		data, err := r.get(rg[0], rg[1]-rg[0])
		if err != nil {
			return err
		}
		blocks = append(blocks, block{rg[0], data})
	}
	r.mu.Lock()
	r.blocks = blocks
	r.mu.Unlock()
	return nil
}

// mergeRanges sorts [start, end) ranges, clips them to size and joins
// overlapping or touching ones.
func mergeRanges(ranges [][2]int64, size int64) [][2]int64 {
	rs := make([][2]int64, 0, len(ranges))
	for _, r := range ranges {
		r[1] = min(r[1], size)
		if r[0] < r[1] {
			rs = append(rs, r)
		}
	}
	sortRanges(rs)
	var out [][2]int64
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}
