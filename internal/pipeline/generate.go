package pipeline

// docs/processors.md and its pictures are generated from the processor
// catalog by the docs tool, cmd/docgen, whose test fails when they are
// stale.
//go:generate go run ../../cmd/docgen -out ../../docs
