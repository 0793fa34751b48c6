#!/bin/sh
# Builds the harness in release for the baseline x86-64 target (the engine
# picks its SIMD kernels at run time) and copies it, with the shared
# libraries it needs that are not part of every Linux (libgomp, libstdc++,
# libgcc_s), run.sh and the numpy/PyTorch script (numpy_relayout_offsets.py
# and the module it imports) into the folder given.
#
#     build-tools/relayout-peers/package.sh OUT_DIR [cargo build args...]
#
# HPTT_MARCH (default x86-64-v3) is the -march hptt's C++ is compiled for,
# in place of its -march=native (see cxx-march.sh); x86-64-v4 for a machine
# with AVX-512, native for this machine only.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 OUT_DIR [cargo build args...]" >&2
    exit 2
fi
out="$1"
shift
here="$(cd "$(dirname "$0")" && pwd)"
march="${HPTT_MARCH:-x86-64-v3}"
export HPTT_MARCH="$march"
export CXX="$here/cxx-march.sh"
# One target folder per -march: cargo does not rebuild hptt when only the
# wrapper's flags change.
export CARGO_TARGET_DIR="$here/target/march-$march"
cargo build --release --locked --manifest-path "$here/Cargo.toml" "$@"
bin="$CARGO_TARGET_DIR/release/relayout-peers"
mkdir -p "$out"
cp "$bin" "$out/"
# Every library ldd resolves, but the C library and the loader, which the
# target machine has (and must match its kernel).
ldd "$bin" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
    case "$name" in
        libc.so.*|libm.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*) ;;
        *) cp -L "$path" "$out/$name"; echo "bundled $name ($path)" ;;
    esac
done
cat > "$out/run.sh" <<'RUN'
#!/bin/sh
# Runs the relayout peer harness with the libraries of this folder.
here="$(cd "$(dirname "$0")" && pwd)"
LD_LIBRARY_PATH="$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/relayout-peers" "$@"
RUN
chmod +x "$out/run.sh"
cp "$here/../bench/numpy_relayout.py" "$here/../bench/numpy_relayout_offsets.py" "$out/"
echo "packaged in $out (hptt -march=$march): $out/run.sh --help"
