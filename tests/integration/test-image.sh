#!/bin/sh
# The container image `make image` writes, offline: an OCI image layout
# in an oci-archive whose digests hold and whose configuration runs
# gpuperfd as README and the DaemonSet say; a root filesystem holding
# exactly the libraries its programs load; and that root runs: gpuperfd
# through the image's own loader and libraries answers /metrics and serves
# the UI, and, as root, gpuperfd chrooted into the root as a container
# runtime would start it (the image's entrypoint, its --user gpuperf, its
# loader cache and the libwebsockets plugin opened by path).
. "$(dirname "$0")/../checks.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)

for tool in umoci skopeo jq curl; do
	if ! command -v "$tool" >/dev/null; then
		fail "$tool is missing ('make deps' installs it)"
		finish
		exit
	fi
done

image=$tmp/gpuperfd.tar
make -s -C "$repo" image BUILD="$build" IMAGE="$image" IMAGE_NAME=gpuperfd:test \
	>"$tmp/image.log" 2>&1
status=$?
check "make image exited $status: $(tail -5 "$tmp/image.log")" [ "$status" = 0 ]
if [ ! -f "$image" ]; then
	finish
	exit
fi
echo "image: $(tail -1 "$tmp/image.log")"

# ---- the layout: every blob the index reaches is there, with the size and
# digest that name it; the layer's uncompressed digest is the config's.
oci=$tmp/oci
mkdir "$oci" && tar -xf "$image" -C "$oci"
blob() {
	printf '%s/blobs/sha256/%s\n' "$oci" "${1#sha256:}"
}
# blob_ok DIGEST SIZE: the blob DIGEST names has that digest and size.
blob_ok() {
	[ -f "$(blob "$1")" ] &&
		[ "sha256:$(sha256sum <"$(blob "$1")" | cut -d' ' -f1)" = "$1" ] &&
		[ "$(stat -c %s "$(blob "$1")")" = "$2" ]
}
check "oci-layout says version $(jq -r .imageLayoutVersion "$oci/oci-layout"), not 1.0.0" \
	[ "$(jq -r .imageLayoutVersion "$oci/oci-layout")" = 1.0.0 ]
check "the index names $(jq '.manifests | length' "$oci/index.json") manifests, not 1" \
	[ "$(jq '.manifests | length' "$oci/index.json")" = 1 ]
check "the index does not name the image gpuperfd:test" \
	[ "$(jq -r '.manifests[0].annotations["org.opencontainers.image.ref.name"]' "$oci/index.json")" = gpuperfd:test ]
manifest=$(jq -r '.manifests[0].digest' "$oci/index.json")
check "the index does not name an OCI image manifest" \
	[ "$(jq -r '.manifests[0].mediaType' "$oci/index.json")" = application/vnd.oci.image.manifest.v1+json ]
check "the manifest's digest or size is not the index's" \
	blob_ok "$manifest" "$(jq -r '.manifests[0].size' "$oci/index.json")"
m=$(blob "$manifest")
check "the manifest does not name an OCI image config" \
	[ "$(jq -r .config.mediaType "$m")" = application/vnd.oci.image.config.v1+json ]
config=$(jq -r .config.digest "$m")
check "the config's digest or size is not the manifest's" \
	blob_ok "$config" "$(jq -r .config.size "$m")"
check "the manifest has $(jq '.layers | length' "$m") layers, not 1" \
	[ "$(jq '.layers | length' "$m")" = 1 ]
layer=$(jq -r '.layers[0].digest' "$m")
check "the layer's digest or size is not the manifest's" \
	blob_ok "$layer" "$(jq -r '.layers[0].size' "$m")"
check "the layer is not a gzip tar" \
	[ "$(jq -r '.layers[0].mediaType' "$m")" = application/vnd.oci.image.layer.v1.tar+gzip ]
diff_id=sha256:$(gzip -dc "$(blob "$layer")" | sha256sum | cut -d' ' -f1)
check "the layer's uncompressed digest is not the config's diff_id" \
	[ "$(jq -r '.rootfs.diff_ids[0]' "$(blob "$config")")" = "$diff_id" ]

# ---- what it runs: skopeo reads the archive as a container tool would.
skopeo inspect --config "oci-archive:$image" >"$tmp/config.json" 2>"$tmp/skopeo.err"
check "skopeo cannot read the archive: $(cat "$tmp/skopeo.err")" [ -s "$tmp/config.json" ]
entrypoint=$(jq -r '.config.Entrypoint | join(" ")' "$tmp/config.json")
gpuperfd_path=$(jq -r '.config.Entrypoint[0]' "$tmp/config.json")
check "the entrypoint is '$entrypoint', not gpuperfd --user gpuperf" \
	[ "$entrypoint" = "${gpuperfd_path%/gpuperfd}/gpuperfd --user gpuperf" ]
check "the image starts as $(jq -r .config.User "$tmp/config.json"), not root (gpuperfd leaves root itself)" \
	[ "$(jq -r .config.User "$tmp/config.json")" = 0:0 ]
check "the image does not expose 7890/tcp" \
	[ "$(jq -r '.config.ExposedPorts | keys | join(",")' "$tmp/config.json")" = 7890/tcp ]
check "the image's arguments are not --listen=0.0.0.0:7890" \
	[ "$(jq -r '.config.Cmd | join(" ")' "$tmp/config.json")" = --listen=0.0.0.0:7890 ]

# The DaemonSet runs the image under the name make image gives it.
version=$(sed -n 's/^VERSION := //p' "$repo/Makefile")
ds_image=$(sed -n 's/^ *image: //p' "$repo/deploy/kubernetes/daemonset.yaml")
check "the DaemonSet runs $ds_image, not gpuperfd:$version as make image names it" \
	[ "$ds_image" = "gpuperfd:$version" ]

# ---- the root: unpacked by umoci, which checks the digests once more.
umoci unpack --rootless --image "$oci:gpuperfd:test" "$tmp/bundle" >"$tmp/umoci.log" 2>&1
check "umoci cannot unpack the image: $(tail -3 "$tmp/umoci.log")" [ -d "$tmp/bundle/rootfs" ]
r=$tmp/bundle/rootfs
loader=$r/lib64/ld-linux-x86-64.so.2
libs=$r/usr/lib/x86_64-linux-gnu
datadir=$(dirname "$(dirname "$gpuperfd_path")")/share/gpuperf
check "the root has no dynamic loader at /lib64/ld-linux-x86-64.so.2" [ -x "$loader" ]
check "the root has no libwebsockets event-loop plugin" [ -f "$libs/libwebsockets-evlib_uv.so" ]
check "the root has no metric definitions" [ -f "$r$datadir/metrics/oa-simgen12.xml" ]
# Every library each program and the plugin load resolves inside the
# root, and the root holds no other file under /usr/lib.
: >"$tmp/needed"
for elf in "$r$gpuperfd_path" "$(dirname "$r$gpuperfd_path")/gpuperf" "$libs/libwebsockets-evlib_uv.so"; do
	"$loader" --library-path "$libs" --list "$elf" >"$tmp/list" 2>&1
	check "$(basename "$elf") needs libraries the root lacks: $(grep 'not found' "$tmp/list")" \
		eval "! grep -q 'not found' \"$tmp/list\""
	check "$(basename "$elf") loads libraries from outside the root: $(grep '=> /' "$tmp/list" | grep -v "=> $r/")" \
		eval "! grep '=> /' \"$tmp/list\" | grep -qv \"=> $r/\""
	sed -n 's|.*=> \(/[^ ]*\) (.*|\1|p' "$tmp/list" | xargs -r realpath >>"$tmp/needed"
done
realpath "$libs/libwebsockets-evlib_uv.so" "$loader" >>"$tmp/needed"
sort -u "$tmp/needed" -o "$tmp/needed"
find "$r/usr/lib" "$r/usr/lib64" -type f -exec realpath {} + | sort >"$tmp/present"
check "the root's libraries are not those loaded: $(comm -3 "$tmp/needed" "$tmp/present" | sed "s|$r||" | tr '\n\t' '  ')" \
	cmp -s "$tmp/needed" "$tmp/present"
check "the root holds headers, static libraries, units or man pages: $(find "$r" -name '*.h' -o -name '*.a' -o -name '*.service' -o -path '*/man/*' | sed "s|$r||" | head -3)" \
	[ -z "$(find "$r" -name '*.h' -o -name '*.a' -o -name '*.service' -o -path '*/man/*')" ]

# ---- gpuperfd from the root, through the root's loader and libraries
# alone: /metrics answers and the UI is served.
ui_checks() {
	curl -s --max-time 10 "http://127.0.0.1:$1/metrics" >"$tmp/$2.metrics"
	expect "$2.metrics" 'gpuperf_device_up{device="sim0"'
	curl -s --max-time 10 "http://127.0.0.1:$1/" >"$tmp/$2.page"
	expect "$2.page" '<script src="app.js" defer></script>'
	curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/app.js" >"$tmp/$2.js"
	expect "$2.js" 200
}
if [ ! -f "$r$datadir/web/index.html" ]; then
	skip "the image's web UI" "npm, which builds it"
	ui_checks() {
		curl -s --max-time 10 "http://127.0.0.1:$1/metrics" >"$tmp/$2.metrics"
		expect "$2.metrics" 'gpuperf_device_up{device="sim0"'
	}
fi
if start_command loaded "$loader" --library-path "$libs" "$r$gpuperfd_path" \
	--allow-root --device sim --listen 127.0.0.1:0 --linger 0 \
	--web-root "$r$datadir/web"; then
	ui_checks "$(port loaded)" loaded
	stop loaded
fi

# ---- as a container runtime starts it: chrooted into the root (with the
# node's /dev, /proc and /sys, as the DaemonSet gives them), the image's
# entrypoint on a free port.
if [ "$(id -u)" != 0 ] || ! unshare --mount true 2>/dev/null; then
	skip "gpuperfd chrooted into the image's root" "root and mount namespaces"
else
	unshare --mount --fork --kill-child sh -c '
		mount --rbind /dev "$1/dev" && mount -t proc proc "$1/proc" &&
			mount --rbind /sys "$1/sys" || exit 1
		root=$1
		shift
		exec chroot "$root" "$@"' sh "$r" $entrypoint --device sim \
		--listen=127.0.0.1:0 >"$tmp/chroot.log" 2>&1 &
	chroot_pid=$!
	pids="$pids $chroot_pid"
	if wait_for chroot.log "ready with" 60 "$chroot_pid"; then
		ok
		expect chroot.log "running as gpuperf (uid"
		ui_checks "$(port chroot)" chroot
	else
		fail "gpuperfd did not start in the image's root: $(tail -5 "$tmp/chroot.log")"
	fi
	# unshare waits for gpuperfd, ignoring SIGTERM itself.
	daemon_pid=$(pgrep -P "$chroot_pid")
	kill -TERM $daemon_pid
	wait "$chroot_pid"
	status=$?
	check "gpuperfd in the image's root exited $status after SIGTERM" [ "$status" = 0 ]
fi
finish
