"""Lists the corpus models the reference engines refuse to load: MuJoCo (MJCF, `.xml`) and
Pinocchio (URDF, `buildModelFromUrdf` with its default options), one line each, the path, a tab
and the reference's own error text. host/tests/suite/import_corpus.rs counts a model we do not
import and the reference refuses too as "broken in the package" (FERRODYN_REFERENCE_REFUSALS).
Usage: import-reference-refusals.py CORPUS_LIST OUT."""
import sys

import mujoco
import pinocchio

with open(sys.argv[2], "w") as out:
    for path in open(sys.argv[1]).read().split():
        try:
            if path.endswith(".urdf"):
                pinocchio.buildModelFromUrdf(path)
            else:
                mujoco.MjModel.from_xml_path(path)
        except Exception as e:  # the reference's refusal, whatever its type
            engine = "Pinocchio " + pinocchio.__version__ if path.endswith(".urdf") else "MuJoCo " + mujoco.__version__
            text = " ".join(str(e).split())
            out.write(f"{path}\t{engine}: {text}\n")
