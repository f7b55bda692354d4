// Pinocchio's articulated-body algorithm (pinocchio::aba) under the RK4 and the semi-implicit
// Euler of the other engines, timed in C++ so that no Python call is in the loop.
// run_pinocchio.py writes the model file and compiles this against the headers and library of
// the `pin` wheel (cmeel prefix).
//
// usage: pinocchio_step MODEL.txt rk4|semi_implicit_euler
// MODEL.txt: "gx gy gz dt steps", "joints N", N lines
// "free|revolute parent ox oy oz ax ay az mass cx cy cz ixx iyy izz" (parent: Pinocchio joint
// index, 0 the universe; origin in the parent joint's frame), "q0" and nq values.
// Prints "cpu_s_per_step wall_s_per_step checksum".

// Pinocchio 4's headers: model and data come with multibody.hpp.
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/multibody.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

using namespace pinocchio;

static double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// A hinge on a coordinate axis is Pinocchio's aligned joint (as its URDF parser makes it),
// any other axis the unaligned one.
static JointIndex add_hinge(Model &model, int parent, const SE3 &at, const Eigen::Vector3d &axis,
                            const std::string &name) {
  if (axis == Eigen::Vector3d::UnitX()) return model.addJoint(parent, JointModelRX(), at, name);
  if (axis == Eigen::Vector3d::UnitY()) return model.addJoint(parent, JointModelRY(), at, name);
  if (axis == Eigen::Vector3d::UnitZ()) return model.addJoint(parent, JointModelRZ(), at, name);
  return model.addJoint(parent, JointModelRevoluteUnaligned(axis), at, name);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: pinocchio_step MODEL.txt rk4|semi_implicit_euler\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  const std::string method = argv[2];
  double gx, gy, gz, dt;
  long steps, joints;
  std::string word;
  in >> gx >> gy >> gz >> dt >> steps >> word >> joints;
  Model model;
  model.gravity.linear(Eigen::Vector3d(gx, gy, gz));
  for (long k = 0; k < joints; ++k) {
    std::string kind;
    int parent;
    double o[3], a[3], mass, c[3], i[3];
    in >> kind >> parent >> o[0] >> o[1] >> o[2] >> a[0] >> a[1] >> a[2] >> mass >> c[0] >> c[1] >>
        c[2] >> i[0] >> i[1] >> i[2];
    const SE3 at(Eigen::Matrix3d::Identity(), Eigen::Vector3d(o[0], o[1], o[2]));
    const std::string name = "j" + std::to_string(k);
    const JointIndex id = kind == "free"
                              ? model.addJoint(parent, JointModelFreeFlyer(), at, name)
                              : add_hinge(model, parent, at, Eigen::Vector3d(a[0], a[1], a[2]), name);
    const Eigen::Vector3d diagonal(i[0], i[1], i[2]);
    model.appendBodyToJoint(id, Inertia(mass, Eigen::Vector3d(c[0], c[1], c[2]), diagonal.asDiagonal()),
                            SE3::Identity());
  }
  Eigen::VectorXd q0(model.nq);
  in >> word;
  for (int k = 0; k < model.nq; ++k) in >> q0[k];
  if (!in || word != "q0") {
    std::fprintf(stderr, "%s: not a model file of run_pinocchio.py\n", argv[1]);
    return 1;
  }
  Data data(model);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv);
  Eigen::VectorXd q = q0, v = Eigen::VectorXd::Zero(model.nv), qs(model.nq), vs(model.nv);
  Eigen::VectorXd k1(model.nv), k2(model.nv), k3(model.nv), k4(model.nv);
  Eigen::VectorXd v2(model.nv), v3(model.nv), v4(model.nv);
  const bool rk4 = method == "rk4";
  const double cpu = cpu_seconds();
  const auto wall = std::chrono::steady_clock::now();
  for (long s = 0; s < steps; ++s) {
    if (rk4) {
      // RK4 on the configuration manifold: every stage moves q0 along the stage velocity.
      k1 = aba(model, data, q, v, tau);
      v2 = v + 0.5 * dt * k1;
      integrate(model, q, 0.5 * dt * v, qs);
      k2 = aba(model, data, qs, v2, tau);
      v3 = v + 0.5 * dt * k2;
      integrate(model, q, 0.5 * dt * v2, qs);
      k3 = aba(model, data, qs, v3, tau);
      v4 = v + dt * k3;
      integrate(model, q, dt * v3, qs);
      k4 = aba(model, data, qs, v4, tau);
      integrate(model, q, dt / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4), qs);
      q = qs;
      v += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    } else {
      v += dt * aba(model, data, q, v, tau);
      integrate(model, q, dt * v, qs);
      q = qs;
    }
  }
  const double cpu_per_step = (cpu_seconds() - cpu) / steps;
  const double wall_per_step =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count() / steps;
  std::printf("%.9e %.9e %.17g\n", cpu_per_step, wall_per_step, q.sum() + v.sum());
  return 0;
}
