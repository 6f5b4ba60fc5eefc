#!/usr/bin/env python3
"""A free5GC SMF preparation plugin speaking TKO's command-plugin protocol (written for krmfn's
tests; TKO's SDK is not used): a PluginInput document on stdin (deploymentId,
deploymentPackage, targetResourceIdentifier, logFile), a PluginOutput document on stdout
(prepared, package, error), as plugins built on TKO's Python SDK answer."""

import copy
import sys
import traceback

import yaml


def prepare(document: dict) -> dict:
    wanted = document["targetResourceIdentifier"]
    package = copy.deepcopy(document.get("deploymentPackage") or [])
    for resource in package:
        api_version = resource.get("apiVersion", "")
        group, _, version = api_version.rpartition("/")
        same = (group, version, resource.get("kind"), resource["metadata"].get("name")) == (
            wanted["group"],
            wanted["version"],
            wanted["kind"],
            wanted["name"],
        )
        if not same:
            continue
        sessions = int(resource.get("spec", {}).get("blahBlah", 1)) * 1000
        resource.setdefault("status", {})["sessionCapacity"] = sessions
        annotations = resource["metadata"].setdefault("annotations", {})
        annotations["nephio.org/prepared"] = "true"
        log(document, f"prepared SMF {wanted['name']} of {document.get('deploymentId')}")
        return {"prepared": True, "package": package}
    return {"prepared": False, "error": f"target {wanted['name']} not in the package"}


def log(document: dict, message: str) -> None:
    if document.get("logFile"):
        with open(document["logFile"], "a", encoding="utf-8") as file:
            file.write(message + "\n")


def main() -> int:
    try:
        output = prepare(yaml.safe_load(sys.stdin))
    except Exception:  # the protocol reports every failure in `error`
        output = {"prepared": False, "package": [], "error": traceback.format_exc()}
    yaml.safe_dump(output, sys.stdout, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
