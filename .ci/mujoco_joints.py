"""What the MuJoCo comparison scripts of .ci/import share: MuJoCo's joints found by our joint
names, and MuJoCo's joint-level passive forces turned off."""
import mujoco


def addresses(model, joints):
    """The named joints' qpos and qvel addresses in `model`, or None when one is not in it."""
    ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in joints]
    if any(i < 0 for i in ids):
        return None
    return [model.jnt_qposadr[i] for i in ids], [model.jnt_dofadr[i] for i in ids]


def without_joint_passive_forces(model):
    """Joint springs, damping, friction loss and fluid forces off, and the armature the importer
    leaves out (`unmodelled_armature_off`); the joints' armature stays on, as the importer
    carries it (mj_setConst must follow: armature enters MuJoCo's constants)."""
    model.jnt_stiffness[:] = 0.0
    model.dof_damping[:] = 0.0
    model.dof_frictionloss[:] = 0.0
    model.opt.density = model.opt.viscosity = 0.0
    unmodelled_armature_off(model)


def unmodelled_armature_off(model):
    """The armature the importer does not carry set to 0: a free joint's (a floating base is no
    scene joint) and a tendon's (noted as not modelled). mj_setConst must follow."""
    for j in range(model.njnt):
        if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            first = model.jnt_dofadr[j]
            model.dof_armature[first : first + 6] = 0.0
    model.tendon_armature[:] = 0.0
