"""Where the tests find dlsim: meson test sets DLSIM (the executable),
DLSIM_LIB (libdlsim.so), BUILD_ROOT and SOURCE_ROOT; run by hand, the
source tree's build/ is used."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("BUILD_ROOT") or os.path.join(SOURCE, "build")
os.environ.setdefault("DLSIM_LIB", os.path.join(BUILD, "libdlsim.so"))
os.environ.setdefault("DLSIM", os.path.join(BUILD, "dlsim"))
sys.path.insert(0, os.path.join(SOURCE, "python"))
sys.path.insert(0, HERE)
