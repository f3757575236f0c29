#!/bin/sh
# FuseSoC generator wrapper (see lsugen_generators.core): FuseSoC runs
# `sh THIS_FILE GAPI.yml` in the generator's output directory.
exec "${LSUGEN:-lsugen}" fusesoc-gen "$@"
