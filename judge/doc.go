// Package judge grades tool calls with an LLM where rules cannot decide: an
// arguments judge against the reference label, a reference-free selection
// judge and a sampled quality judge, one client for OpenAI-compatible
// chat-completions endpoints, and the statistics that calibrate a judge
// against the human gold (agreement, Cohen's kappa, confusion).
package judge
