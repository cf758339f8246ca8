// Package synth generates realistic, seeded, deterministic production traces
// of a customer-support agent for an online shop — with the model's
// deliberate mistakes and the right call at every decision point — for the
// demo, tests and benchmarks of the rest of goldtrace.
package synth
