#!/bin/sh
# gpu_check.sh - the checks that need an NVIDIA GPU, in one run:
#   - samples/gemm_nvtx under dlprof (tests/collector/test_samples_gemm):
#     CUPTI activity, NVTX ranges, external correlations, the profiler range;
#   - a CUDA PyTorch's CNN under torch.profiler, its traces imported, and the
#     same CNN under `dlprof python` with emit_nvtx (tests/pytorch/check.py gpu).
#
#   scripts/gpu_check.sh BUILD OUT
#
# BUILD is a build tree with the tests (cli/dlprof, collector/, samples/
# gemm_nvtx, tests/collector/test_samples_gemm); BUILD/lib, when present,
# holds shared libraries the machine lacks (put first on LD_LIBRARY_PATH).
# DL_TORCH_PYTHON is the python with a CUDA PyTorch (default python3).
# Each check's log, the dldbs and the traces are left in OUT; exits non-zero
# when a check fails.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
OUT=$2
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:/usr/local/cuda/lib64"
export PATH="$PATH:/usr/local/nvidia/bin"
py=${DL_TORCH_PYTHON:-python3}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} >"$OUT/machine.txt" 2>&1
mkdir -p "$OUT/gemm"
"$BUILD/tests/collector/test_samples_gemm" "$BUILD/cli/dlprof" "$BUILD/samples/gemm_nvtx" \
  "$OUT/gemm" >"$OUT/samples_gemm.log" 2>&1
gemm=$?
echo "samples_gemm_nvtx: exit $gemm"
DL_TORCH_PYTHON=$py python3 "$ROOT/tests/pytorch/check.py" gpu "$BUILD/cli/dlprof" \
  "$OUT/pytorch" >"$OUT/pytorch_gpu.log" 2>&1
torch=$?
echo "pytorch_gpu: exit $torch"
[ $gemm -eq 0 ] && [ $torch -eq 0 ]
