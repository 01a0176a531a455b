#!/usr/bin/env bash
# Installs the Debian packages ompi-zip needs to build, test and benchmark.
# Idempotent: only missing packages are installed. Needs root (or sudo) and apt.
set -euo pipefail

# libsimgrid-dev: perftest/simscale (zip's algorithms on simulated clusters, docs/scale.md).
# No libucx-dev: nothing here compiles against UCX. The MPI runs over pml/ucx need only UCX's
# run-time libraries (libucx0), which Open MPI's libopenmpi3 depends on. gfortran: mpif90 for
# the recorder's Fortran test (tests/mpi/run-msgrec-tests.sh).
packages=(
  build-essential autoconf automake libtool pkg-config
  openmpi-bin libopenmpi-dev gfortran
  liblz4-dev libzstd-dev libblosc-dev libxxhash-dev
  libgtest-dev clang libclang-rt-14-dev clang-format
  iproute2 gnuplot-nox python3
  environment-modules
  libsimgrid-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
