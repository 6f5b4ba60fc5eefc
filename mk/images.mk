# Container images of the functions (included by the main Makefile).
#
#   make images        podman (or docker) set up, local base image, one image per function
#                      (this machine's architecture; PLATFORMS=linux/amd64,linux/arm64 adds arm64)
#   make images-arm64  the linux/arm64 images, built under qemu emulation
#   make e2e-images    image-mode renders of examples/ must equal exec mode, then the registry
#                      round trip and the arm64 images under emulation (scripts/images/e2e-*.sh)
#   make push REGISTRY=host[:port]/path   builds what is missing, pushes one manifest list
#                      (linux/amd64 + linux/arm64) per function and tag, digests to DIGESTS
#
# Uses VENV and PY from the main Makefile and its `install` target.
# Env knobs: KRMFN_CONTAINER_TOOL=podman|docker, KRMFN_BASE_IMAGE=<image>
# (skip the debootstrap base where pulls work, e.g. python:3.11-bookworm: the base needs gcc,
# the Python headers and libyaml-dev for krmlib's wheel, which the slim image lacks).

IMAGES_SCRIPTS := scripts/images
# Where `make push` pushes: images are $(REGISTRY)/krmfn/<function>:vX.Y.Z (and vX.Y, vX).
REGISTRY ?= ghcr.io
# Platforms of `make images` (this machine's by default) and of `make push` (both).
PLATFORMS ?=
PUSH_PLATFORMS ?= linux/amd64,linux/arm64
# auto: plain HTTP for a registry on loopback (127.0.0.1, localhost, [::1]), TLS otherwise.
TLS_VERIFY ?= auto
DIGESTS ?= dist/image-digests.txt

# linux/amd64,linux/arm64 -> amd64 arm64
archs = $(subst linux/,,$(subst $(comma), ,$(1)))
comma := ,

.PHONY: images images-arm64 e2e-images images-setup images-base push qemu-setup kpt-install \
	registry-login

# kpt for a machine without it (the publish workflow's runner); a no-op here.
kpt-install:
	@VENV=$(VENV) bash $(IMAGES_SCRIPTS)/install-kpt.sh

# podman login to REGISTRY's host, the password from the environment variable TOKEN.
registry-login:
	@test -n "$$TOKEN" || { echo "registry-login: set TOKEN (and REGISTRY_USER)" >&2; exit 1; }
	@printf '%s' "$$TOKEN" | podman login --username "$(REGISTRY_USER)" --password-stdin \
		"$(firstword $(subst /, ,$(REGISTRY)))"

images-setup:
	@bash $(IMAGES_SCRIPTS)/setup-podman.sh

qemu-setup:
	@bash $(IMAGES_SCRIPTS)/setup-qemu.sh

images-base: images-setup
	@bash $(IMAGES_SCRIPTS)/base-image.sh

images: install images-base
	@VENV=$(VENV) KRMFN_PY=$(PY) bash $(IMAGES_SCRIPTS)/build-all.sh $(call archs,$(PLATFORMS))

images-arm64: install images-setup
	@VENV=$(VENV) KRMFN_PY=$(PY) bash $(IMAGES_SCRIPTS)/build-all.sh arm64

push: install images-setup
	@VENV=$(VENV) KRMFN_PY=$(PY) KRMFN_TLS_VERIFY=$(TLS_VERIFY) \
		bash $(IMAGES_SCRIPTS)/push-images.sh "$(REGISTRY)" "$(DIGESTS)" $(call archs,$(PUSH_PLATFORMS))

# The whole image stage: amd64 images and their e2e while arm64 builds in the background,
# then the registry round trip and arm64 against amd64 (scripts/images/e2e-all.sh).
e2e-images: install
	@VENV=$(VENV) KRMFN_PY=$(PY) bash $(IMAGES_SCRIPTS)/e2e-all.sh
