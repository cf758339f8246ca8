// Package sampling chooses which decision points reviewers label: seeded,
// reproducible uniform and stratified samples with deduplication by input,
// stratum allocation, stream (reservoir) sampling of trace files, and the
// rotation that gives every sampled item N distinct reviewers.
package sampling
