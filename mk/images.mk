# Container images of the functions (included by the main Makefile).
#
#   make images      podman (or docker) set up, local base image, five images
#   make e2e-images  image-mode renders of examples/ must equal exec mode
#
# Uses VENV and PY from the main Makefile and its `install` target.
# Env knobs: KRMFN_CONTAINER_TOOL=podman|docker, KRMFN_BASE_IMAGE=<image>
# (skip the debootstrap base, e.g. python:3.11-slim where pulls work).

IMAGES_SCRIPTS := scripts/images

.PHONY: images e2e-images images-setup images-base

images-setup:
	@bash $(IMAGES_SCRIPTS)/setup-podman.sh

images-base: images-setup
	@bash $(IMAGES_SCRIPTS)/base-image.sh

images: install images-base
	@VENV=$(VENV) KRMFN_PY=$(PY) bash $(IMAGES_SCRIPTS)/build-images.sh

e2e-images: images
	@VENV=$(VENV) KRMFN_PY=$(PY) bash $(IMAGES_SCRIPTS)/e2e-images.sh
