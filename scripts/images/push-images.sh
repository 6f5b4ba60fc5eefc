#!/usr/bin/env bash
# Push every function image as one manifest list per tag:
#
#   push-images.sh REGISTRY DIGESTS [ARCH...]   # ARCH default: amd64 arm64
#
# REGISTRY is host[:port][/path] (ghcr.io, 127.0.0.1:5000, registry.example.com/team);
# each function goes to REGISTRY/krmfn/<function> with the tags vX.Y.Z, vX.Y and
# vX of the version in pyproject.toml (a pre-release: vX.Y.Z-pre only).
#
# 1. Builds what is missing: build-all.sh ARCH... (the layer cache makes an
#    unchanged image a no-op).
# 2. Per function: a local manifest list REGISTRY/krmfn/<fn>:vX.Y.Z holding the
#    local image of every ARCH (localhost/krmfn/<fn>:vX.Y.Z, and :vX.Y.Z-arm64
#    on amd64), each entry annotated with the image's OCI annotations; pushed
#    (podman manifest push --all, OCI format) under each tag, so all three tags
#    name the same list.
# 3. DIGESTS gets one line per pushed reference: REGISTRY/krmfn/<fn>:<tag>
#    followed by the list's digest (image@sha256:...), for Kptfiles that pin by
#    digest. A tag pushed twice with different digests is an error.
#
# TLS: KRMFN_TLS_VERIFY=auto (default) talks plain HTTP to a registry on
# loopback (127.0.0.1, localhost, [::1]) and TLS elsewhere; true/false force it.
# Log in first for a registry that needs it (podman login REGISTRY).
# Needs podman (manifest lists); docker is refused with a message.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KRMFN_ROOT"

(($# >= 2)) || die "usage: push-images.sh REGISTRY DIGESTS [ARCH...]"
REGISTRY="${1%/}"
DIGESTS="$2"
shift 2
archs=("$@")
((${#archs[@]})) || archs=(amd64 arm64)
[[ -n "$REGISTRY" && "$REGISTRY" != *://* && "$REGISTRY" != */ ]] \
  || die "REGISTRY must be host[:port][/path] without a scheme, got '$REGISTRY'"

TOOL="$(container_tool)"
[[ "$TOOL" == podman ]] \
  || die "make push needs podman (manifest lists); set KRMFN_CONTAINER_TOOL=podman"

host="${REGISTRY%%/*}"
case "${KRMFN_TLS_VERIFY:-auto}" in
  auto)
    case "$host" in
      127.0.0.1 | 127.0.0.1:* | localhost | localhost:* | "[::1]" | "[::1]:"*) tls=false ;;
      *) tls=true ;;
    esac
    ;;
  true | false) tls="$KRMFN_TLS_VERIFY" ;;
  *) die "KRMFN_TLS_VERIFY must be auto, true or false, got '$KRMFN_TLS_VERIFY'" ;;
esac

start=$SECONDS
bash scripts/images/build-all.sh "${archs[@]}"

load_functions
mapfile -t TAGS < <(image_tags) || true
((${#TAGS[@]})) || die "no image tags for this version (see above)"
TAG="${TAGS[0]}"

mkdir -p "$(dirname "$DIGESTS")"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/krmfn-push.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/digests"

for fn in "${KRMFN_FUNCTIONS[@]}"; do
  repo="$REGISTRY/krmfn/$fn"
  list="$repo:$TAG"
  # A list of an earlier push would keep its old entries: start afresh.
  if podman manifest exists "$list" 2>/dev/null; then
    podman manifest rm "$list" >/dev/null
  elif podman image exists "$list"; then
    podman rmi "$list" >/dev/null
  fi
  podman manifest create "$list" >/dev/null
  for arch in "${archs[@]}"; do
    image="$(local_image "$fn" "$TAG" "$arch")"
    got="$(podman image inspect --format '{{.Os}}/{{.Architecture}}' "$image" 2>/dev/null)" \
      || die "$image missing after the build"
    [[ "$got" == "linux/$arch" ]] || die "$image is $got, not linux/$arch"
    annotations=()
    while IFS= read -r kv; do
      # podman splits an --annotation of manifest add at commas: such a value (a
      # description) stays on the image manifest and config only.
      [[ -n "$kv" && "$kv" != *,* ]] && annotations+=(--annotation "$kv")
    done < <(podman image inspect --format '{{range $k, $v := .Labels}}{{$k}}={{$v}}{{println}}{{end}}' \
      "$image" | grep -E '^(org\.opencontainers\.image\.|dev\.krmfn\.)')
    podman manifest add "${annotations[@]}" "$list" "containers-storage:$image" >/dev/null \
      || die "podman manifest add $list $image failed"
  done
  for tag in "${TAGS[@]}"; do
    if ! podman manifest push --all --format oci --tls-verify="$tls" \
        --digestfile "$tmp/digest" "$list" "docker://$repo:$tag" >"$tmp/push.log" 2>&1; then
      tail -n 20 "$tmp/push.log" >&2
      die "pushing $repo:$tag failed (podman login $host first if it needs credentials)"
    fi
    digest="$(cat "$tmp/digest")"
    [[ "$digest" == sha256:* ]] || die "no digest for $repo:$tag"
    printf '%s:%s %s@%s\n' "$repo" "$tag" "$repo" "$digest" >>"$tmp/digests"
    log "pushed $repo:$tag ${#archs[@]} platforms ($digest)"
  done
  n="$(awk -v r="$repo" 'index($1, r ":") == 1 { print $2 }' "$tmp/digests" | sort -u | grep -c .)"
  ((n == 1)) || die "the tags of $repo name $n different lists"
done

{
  printf '# %s: %s, %s; one manifest list (%s) per function and tag.\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$REGISTRY" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    "$(printf 'linux/%s ' "${archs[@]}" | sed 's/ $//')"
  cat "$tmp/digests"
} >"$DIGESTS"
log "pushed ${#KRMFN_FUNCTIONS[@]} functions x ${#TAGS[@]} tags to $REGISTRY in $((SECONDS - start)) s; digests in $DIGESTS"
