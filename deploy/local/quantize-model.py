"""Rewrites the published all-MiniLM-L6-v2 ONNX model so that it multiplies in int8.

The published model stores int8 weights that ONNX Runtime casts back to float32 when it loads
them, so every product runs in float32. ONNX Runtime's own tools fold those casts into float32
weights, then quantize the model dynamically: int8 weights, activations quantized per call,
MatMulInteger. Run by deploy/local/model.js with pinned packages; see docs/memory-search.md.

Usage: quantize-model.py <published.onnx> <out.onnx>
"""

import os
import sys
import tempfile

import onnxruntime
from onnxruntime.quantization import QuantType, quantize_dynamic


def main(published: str, out: str) -> None:
    with tempfile.TemporaryDirectory() as work:
        folded = os.path.join(work, "folded.onnx")
        options = onnxruntime.SessionOptions()
        # Basic optimizations fold constant subgraphs: int8 weight -> Cast -> Mul(scale) becomes a
        # float32 weight, which quantize_dynamic then requantizes for MatMulInteger.
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = folded
        onnxruntime.InferenceSession(published, options, providers=["CPUExecutionProvider"])
        quantize_dynamic(folded, out, weight_type=QuantType.QInt8)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
