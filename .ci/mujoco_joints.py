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
    """Joint springs, damping, friction loss, armature and fluid forces off (mj_setConst must
    follow: armature enters MuJoCo's constants)."""
    model.jnt_stiffness[:] = 0.0
    model.dof_damping[:] = 0.0
    model.dof_frictionloss[:] = 0.0
    model.dof_armature[:] = 0.0
    model.opt.density = model.opt.viscosity = 0.0
