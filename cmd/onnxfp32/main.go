// Command onnxfp32 writes an fp16 ONNX model as fp32 (see package
// internal/vision/onnxfp32 for why). scripts/models.sh runs it to make the
// IS-Net file the service loads.
//
//	onnxfp32 IN OUT
package main

import (
	"fmt"
	"os"

	"github.com/showroom/showroom/internal/vision/onnxfp32"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: onnxfp32 IN OUT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "onnxfp32:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	model, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	wide, st, err := onnxfp32.Convert(model)
	if err != nil {
		return err
	}
	if st.Tensors == 0 {
		return fmt.Errorf("%s has no fp16 tensors", in)
	}
	if err := os.WriteFile(out, wide, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "onnxfp32: %s: %d tensors widened, %d casts and %d declared types now fp32\n", out, st.Tensors, st.Casts, st.TypeInfos)
	return nil
}
