#!/bin/sh
# Builds gpuperfd's container image without a base image, offline: the
# daemon and the gpuperf CLI as `make install` lays them out, the web UI
# and the metric definitions, and exactly the shared libraries they load
# (ldd's list, the dynamic loader, and the libwebsockets event-loop plugin
# that libwebsockets opens at run time), written as an OCI image layout
# with umoci and packed into one oci-archive file with skopeo.
#
#   deploy/image/build-image.sh OUTPUT.tar NAME:TAG
#
# `make image` runs it (OUTPUT $(BUILD)/gpuperfd-image.tar, NAME:TAG
# gpuperfd:VERSION). Environment, as the Makefile passes it: MAKE, BUILD
# (the build folder), BINDIR and DATADIR (the installed paths the binaries
# were built for). Load the result with
#   skopeo copy oci-archive:OUTPUT.tar docker-daemon:NAME:TAG
#   podman load -i OUTPUT.tar
#
# The image starts as root, opens the devices and its listener, then runs
# as the image's gpuperf user keeping CAP_PERFMON alone (--user gpuperf).
set -eu

out=${1:?usage: build-image.sh OUTPUT.tar NAME:TAG}
name=${2:?usage: build-image.sh OUTPUT.tar NAME:TAG}
tag=${name##*:}
make=${MAKE:-make}
build=${BUILD:-build}
bindir=${BINDIR:-/usr/local/bin}
datadir=${DATADIR:-/usr/local/share/gpuperf}
# The user the daemon serves as, and the groups of the DRM nodes (video
# is 44 on Debian and its derivatives; render has no fixed id).
uid=7890

for tool in umoci skopeo ldd strip; do
	command -v "$tool" >/dev/null || {
		echo "build-image.sh: $tool is missing; 'make deps' installs it" >&2
		exit 1
	}
done
libdir=$(pkg-config --variable=libdir libwebsockets)
plugin=$libdir/libwebsockets-evlib_uv.so
[ -f "$plugin" ] || {
	echo "build-image.sh: $plugin is missing; 'make deps' installs libwebsockets-evlib-uv" >&2
	exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root

# What `make install` lays out, of which the image keeps the programs and
# the data (no headers, static libraries, units or man pages).
$make -s install DESTDIR="$work/install" BUILD="$build" >/dev/null
mkdir -p "$root$bindir" "$root$datadir"
cp -p "$work/install$bindir/gpuperfd" "$work/install$bindir/gpuperf" "$root$bindir/"
cp -Rp "$work/install$datadir/metrics" "$root$datadir/"
[ ! -d "$work/install$datadir/web" ] || cp -Rp "$work/install$datadir/web" "$root$datadir/"
strip --strip-unneeded "$root$bindir/gpuperfd" "$root$bindir/gpuperf"

# The root is laid out as Debian's (/lib and /lib64 are /usr's), so a
# library is found under the name ldd gives as under its real path.
mkdir -p "$root/usr/lib" "$root/usr/lib64" "$root/etc" "$root/tmp" \
	"$root/dev" "$root/proc" "$root/sys"
chmod 1777 "$root/tmp"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

# add_file PATH: the file PATH resolves to, at its real path in the root,
# and PATH itself (a link to it) when its name differs.
add_file() {
	real=$(readlink -f "$1")
	case $real in /lib/* | /lib64/*) real=/usr$real ;; esac
	[ -e "$root$real" ] || {
		mkdir -p "$(dirname "$root$real")"
		cp -p "$real" "$root$real"
	}
	link=$1
	case $link in /lib/* | /lib64/*) link=/usr$link ;; esac
	[ "$link" = "$real" ] || [ -e "$root$link" ] || {
		mkdir -p "$(dirname "$root$link")"
		ln -s "$(realpath --relative-to="$(dirname "$link")" "$real")" "$root$link"
	}
}

# add_libraries ELF: every library ELF loads, as ldd resolves it here.
add_libraries() {
	ldd "$1" | sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
		while read -r lib; do add_file "$lib"; done
}

add_file "$plugin"
for elf in "$root$bindir/gpuperfd" "$root$bindir/gpuperf" "$plugin"; do
	add_libraries "$elf"
done
strip --strip-unneeded "$root"/usr/lib/*/*.so* 2>/dev/null || true

# Users and groups, for --user gpuperf and the names the log shows.
cat >"$root/etc/passwd" <<EOF
root:x:0:0:root:/:/usr/sbin/nologin
gpuperf:x:$uid:$uid:GPU performance counter daemon:/:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<EOF
root:x:0:
video:x:44:gpuperf
gpuperf:x:$uid:
nogroup:x:65534:
EOF
printf 'passwd: files\ngroup: files\n' >"$root/etc/nsswitch.conf"
# The loader's cache, so it finds the libraries wherever they are.
printf '%s\n' "${libdir}" >"$root/etc/ld.so.conf"
ldconfig -r "$root"

# The image: one layer, the root; run as root, which gpuperfd leaves for
# gpuperf once its devices and listener are open.
layout=$work/layout
umoci init --layout "$layout"
umoci new --image "$layout:$tag"
umoci insert --image "$layout:$tag" "$root" /
umoci config --image "$layout:$tag" \
	--author "gpuperfd" \
	--os linux --architecture amd64 \
	--config.user 0:0 \
	--config.entrypoint "$bindir/gpuperfd" \
	--config.entrypoint --user --config.entrypoint gpuperf \
	--config.cmd --listen=0.0.0.0:7890 \
	--config.exposedports 7890/tcp \
	--config.workingdir / \
	--config.env PATH=/usr/local/bin:/usr/bin:/bin \
	--config.label "org.opencontainers.image.title=gpuperfd" \
	--config.label "org.opencontainers.image.version=$tag" \
	--history.comment "gpuperfd $tag: make image"
umoci gc --layout "$layout"
rm -f "$out"
skopeo copy --quiet "oci:$layout:$tag" "oci-archive:$out:$name"
echo "$out: $name, $(du -k "$out" | cut -f1) KiB ($(du -sk "$root" | cut -f1) KiB unpacked)"
