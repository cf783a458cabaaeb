#!/bin/sh
# Assembles what Jib needs to build the mesh-injector image without Docker or a registry (the
# image-tar profile of the webhook module runs it; see docs/image.md):
#
#   OUT/base.tar  a base image in `docker save` form, from nothing but Debian's packages and the
#                 local JDK: layer 1 is glibc and busybox (for /bin/sh and the few tools the launcher
#                 calls), layer 2 a Java 25 runtime jlinked from the JDK at /opt/java/openjdk
#   OUT/app/      the image's /app: bin/ (launcher, JVM flags, training script), lib/app/ (the
#                 extracted jar), share/cluster.yaml; and, when this runs as root, the JDK 25 AOT
#                 cache, trained inside the assembled root file system with the image's own JVM at
#                 the image's own paths
#
# Usage: assemble-base.sh OUT APP_DIR REPO_ROOT
#   IMAGE_JDK            the JDK to jlink from (default /usr/lib/jvm/temurin-25-jdk-amd64)
#   IMAGE_JAVA_MODULES   the runtime's modules (default below)
#   IMAGE_AOT            0: no AOT cache (default: trained when root with unshare and chroot)
#
# Needs apt-get and dpkg-deb (a Debian or Ubuntu machine) and network access to its package
# mirrors. Writes only under OUT. Every file's time is set to 1970-01-01T00:00:01Z, the time Jib
# gives the files it adds, so the layers are reproducible and the AOT cache, which records the
# jar's time, matches the jar in the image.
set -eu

out=${1:?usage: assemble-base.sh OUT APP_DIR REPO_ROOT}
app_src=${2:?usage: assemble-base.sh OUT APP_DIR REPO_ROOT}
repo=${3:?usage: assemble-base.sh OUT APP_DIR REPO_ROOT}
jdk=${IMAGE_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
# jdeps --print-module-deps over the jar and its lib/ (java.base ... jdk.unsupported), plus what is
# only loaded by name: java.logging and java.management (JUL, JMX), jdk.crypto.ec, jdk.net
# (extended socket options), jdk.naming.dns (Netty's resolver reads the name servers through it),
# jdk.zipfs
modules=${IMAGE_JAVA_MODULES:-java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,java.prefs,java.scripting,java.security.jgss,java.sql,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.net,jdk.unsupported,jdk.zipfs}
# glibc (and libgcc_s, which it loads for thread cancellation): all the JVM links against, since
# Temurin bundles zlib and links libstdc++ statically; busybox: /bin/sh, sed, awk, grep, mktemp,
# and unshare for the probe's active check; iptables and the libraries it links (its Depends but
# netbase): iptables-legacy, iptables-nft and their ip6tables twins, which the probe's active check
# runs (docs/node-probe.md); nftables and what it links (libnftables1, libedit2 and theirs): nft,
# which the active check runs for the nftables key
packages="libc6 libgcc-s1 busybox-static iptables libip4tc2 libip6tc2 libxtables12 libmnl0 libnetfilter-conntrack3 libnfnetlink0 libnftnl11 nftables libnftables1 libedit2 libbsd0 libmd0 libtinfo6 libgmp10 libjansson4"
stamp=@1

for tool in apt-get dpkg-deb tar sha256sum; do
  command -v "$tool" > /dev/null || { echo "assemble-base: $tool not found (a Debian or Ubuntu machine is needed)" >&2; exit 1; }
done
[ -x "$jdk/bin/jlink" ] || { echo "assemble-base: no JDK at $jdk (set IMAGE_JDK)" >&2; exit 1; }
[ -f "$app_src/mesh-injector.jar" ] || { echo "assemble-base: $app_src/mesh-injector.jar missing: package the webhook module first" >&2; exit 1; }

work=$out/work
rootfs=$work/rootfs
# Jib's cache of the layers it builds (the profile puts it at OUT/jib-cache) is keyed on files'
# paths and times, not content: with every time the same, a changed jar would hit the old layer
rm -rf "$rootfs" "$out/app" "$out/base" "$out/base.tar" "$out/jib-cache"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs" "$out/base"

# -- Debian's packages, with apt's state kept under OUT: the machine's own lists are not touched
: > "$work/apt/status"
user=$(id -un)
set -- -q -o "Dir::State::Lists=$work/apt/lists" -o "Dir::State::status=$work/apt/status" \
  -o "Dir::Cache=$work/apt/cache" -o "APT::Sandbox::User=$user" -o Debug::NoLocking=true
echo "assemble-base: apt-get update (lists under $work/apt)"
apt-get "$@" update > "$work/apt-update.log" 2>&1 || { cat "$work/apt-update.log" >&2; exit 1; }
rm -f "$work"/debs/*.deb
# shellcheck disable=SC2086 # one word per package
(cd "$work/debs" && apt-get "$@" download $packages)

# -- the root file system: merged /usr, as Debian has it since bookworm
mkdir -p "$rootfs/usr/bin" "$rootfs/usr/sbin" "$rootfs/usr/lib" "$rootfs/usr/lib64"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$rootfs/$d"; done
for deb in "$work"/debs/*.deb; do
  dpkg-deb --fsys-tarfile "$deb" | tar -C "$rootfs" --keep-directory-symlink -xf -
done
# the packages' copyright files stay (their licences ask for it); changelogs, manuals, locales go
find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
rm -rf "$rootfs/usr/share/lintian" "$rootfs/usr/share/man" "$rootfs/usr/share/locale" \
  "$rootfs/usr/share/i18n"
# iptables' own links (iptables-legacy, iptables-nft, their -save and -restore) are in the package;
# the plain names are update-alternatives links its postinst would make: the probe names the
# backend, so they are left out
# busybox's applets as links, where no file of the same name exists
for applet in $("$rootfs/usr/bin/busybox" --list); do
  [ -e "$rootfs/usr/bin/$applet" ] || ln -s busybox "$rootfs/usr/bin/$applet"
done
mkdir -p "$rootfs/etc" "$rootfs/dev" "$rootfs/proc" "$rootfs/sys" "$rootfs/run" "$rootfs/tmp" \
  "$rootfs/root" "$rootfs/opt/java"
chmod 1777 "$rootfs/tmp"
chmod 700 "$rootfs/root"
# uid 65532 as in distroless images, with no home: nothing may be written outside /tmp
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$rootfs/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$rootfs/etc/nsswitch.conf"
# the container runtime mounts its own; this one serves a chroot (the AOT training, the test)
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$rootfs/etc/hosts"

# -- the Java runtime
echo "assemble-base: jlink $modules"
"$jdk/bin/jlink" --add-modules "$modules" --output "$rootfs/opt/java/openjdk" \
  --strip-debug --no-man-pages --no-header-files --generate-cds-archive

# -- the base image: two layers, in `docker save` form, which Jib reads with tar://
find "$rootfs" -exec touch -h -d "$stamp" {} +
tar_layer() { # layer file, then paths relative to the root file system
  layer=$1; shift
  tar -C "$rootfs" --sort=name --owner=0 --group=0 --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -cf "$layer" "$@"
}
# shellcheck disable=SC2046 # the top-level entries, one word each
tar_layer "$out/base/os.tar" --exclude=opt/java $(cd "$rootfs" && ls -A)
tar_layer "$out/base/java.tar" opt/java
os_id=$(sha256sum "$out/base/os.tar" | cut -d' ' -f1)
java_id=$(sha256sum "$out/base/java.tar" | cut -d' ' -f1)
java_version=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$rootfs/opt/java/openjdk/release")
pkgs=$(for deb in "$work"/debs/*.deb; do basename "$deb" .deb; done | tr '\n' ' ')
cat > "$out/base/config.json" <<EOF
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",
 "config":{"Env":["PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=/opt/java/openjdk","LANG=C.UTF-8"]},
 "rootfs":{"type":"layers","diff_ids":["sha256:$os_id","sha256:$java_id"]},
 "history":[{"created":"1970-01-01T00:00:00Z","created_by":"assemble-base.sh: Debian packages ${pkgs% }"},
            {"created":"1970-01-01T00:00:00Z","created_by":"assemble-base.sh: jlink of Java $java_version at /opt/java/openjdk"}]}
EOF
printf '[{"Config":"config.json","RepoTags":["mesh-injector-base:local"],"Layers":["os.tar","java.tar"]}]\n' \
  > "$out/base/manifest.json"
tar -C "$out/base" --owner=0 --group=0 --numeric-owner -cf "$out/base.tar" manifest.json config.json os.tar java.tar

# -- /app, as the Dockerfile lays it out; the build's own AOT cache belongs to another JVM and path
mkdir -p "$out/app/bin" "$out/app/lib" "$out/app/share"
cp -R "$app_src" "$out/app/lib/app"
rm -f "$out/app/lib/app/mesh-injector.aot"
cp "$repo/bin/mesh-injector" "$repo/bin/jvm.options" "$repo/bin/train-aot-cache" "$out/app/bin/"
cp "$repo/examples/cluster.yaml" "$out/app/share/cluster.yaml"
chmod -R a+rX,go-w "$out/app"
chmod 755 "$out/app/bin/mesh-injector" "$out/app/bin/train-aot-cache"
find "$out/app" -exec touch -h -d "$stamp" {} +

# -- the AOT cache: trained in the assembled root file system, in a private mount namespace (proc,
# a few device nodes and a tmpfs /tmp, gone when the training ends), with the image's /app
if [ "${IMAGE_AOT:-1}" = 0 ]; then
  echo "assemble-base: IMAGE_AOT=0: no AOT cache"
elif [ "$(id -u)" != 0 ] || ! command -v chroot > /dev/null \
    || ! unshare --mount --pid --fork true 2> /dev/null; then
  echo "assemble-base: not root with chroot and mount namespaces: no AOT cache in the image (the launcher starts without one)"
else
  echo "assemble-base: training the AOT cache inside the image's root file system"
  cp -a "$out/app" "$rootfs/app"
  # shellcheck disable=SC2016 # expanded by the inner shell
  unshare --mount --pid --fork --kill-child sh -c '
    set -eu
    root=$1
    mount -t proc proc "$root/proc"
    mount -t tmpfs -o mode=755 tmpfs "$root/dev"
    for n in null zero random urandom; do : > "$root/dev/$n"; mount --bind "/dev/$n" "$root/dev/$n"; done
    mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
    exec chroot "$root" /app/bin/train-aot-cache /app/share/cluster.yaml' sh "$rootfs"
  test -s "$rootfs/app/lib/app/mesh-injector.aot"
  cp "$rootfs/app/lib/app/mesh-injector.aot" "$out/app/lib/app/mesh-injector.aot"
  chmod 644 "$out/app/lib/app/mesh-injector.aot"
  touch -d "$stamp" "$out/app/lib/app/mesh-injector.aot"
  rm -rf "$rootfs/app"
fi
echo "assemble-base: $out/base.tar ($(du -h "$out/base.tar" | cut -f1)), $out/app"
