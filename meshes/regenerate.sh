#!/usr/bin/env bash
# Regenerates the committed .msh files from the .geo sources (Gmsh 4.8.4: `apt-get install gmsh`).
set -euo pipefail
cd "$(dirname "$0")"
gmsh --version
gmsh -3 -order 1 -format msh41 -setnumber lc 0.04 beam.geo -o beam_coarse.msh
gmsh -3 -order 1 -format msh41 -setnumber lc 0.025 beam.geo -o beam_medium.msh
gmsh -3 -order 1 -format msh22 -setnumber lc 0.2 cube.geo -o cube_22.msh
gmsh -3 -order 1 -format msh41 -bin -setnumber lc 0.2 cube.geo -o cube_41_bin.msh
ls -l ./*.msh
