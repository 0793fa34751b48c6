#!/bin/sh
# C++ compiler wrapper for hptt's cmake build (package.sh sets CXX to it):
# hptt's CMakeLists compiles with -march=native -mtune=native, which ties
# the binary to the build machine's CPU. This wrapper replaces both with
# -march=$HPTT_MARCH (default x86-64-v3: AVX2, any x86-64 server since
# 2013), so the packaged binary runs on another x86-64 machine.
march="${HPTT_MARCH:-x86-64-v3}"
for arg do
    shift
    case "$arg" in
        -march=native) set -- "$@" "-march=$march" ;;
        -mtune=native) set -- "$@" "-mtune=generic" ;;
        *) set -- "$@" "$arg" ;;
    esac
done
exec "${HPTT_CXX:-c++}" "$@"
