// Cantilever beam 1 m x 0.1 m x 0.1 m along x (x = 0 .. 1), for ANCF tetrahedral bodies.
// Mesh size: `-setnumber lc 0.04` (default 0.04) or `-clmax 0.04`; mesh with `-order 1` (linear tets, the default).
SetFactory("OpenCASCADE");

DefineConstant[ lc = {0.04, Min 0.005, Max 0.5, Name "Parameters/Characteristic length"} ];

Box(1) = {0, 0, 0, 1, 0.1, 0.1};

eps = 1e-6;
clamp() = Surface In BoundingBox{-eps, -eps, -eps, eps, 0.1 + eps, 0.1 + eps};
tip() = Surface In BoundingBox{1 - eps, -eps, -eps, 1 + eps, 0.1 + eps, 0.1 + eps};

Physical Volume("beam", 1) = {1};
Physical Surface("clamp", 2) = {clamp()};
Physical Surface("tip", 3) = {tip()};

// Sizes at the corner points (not Mesh.CharacteristicLengthMax) so that `-clmax` still caps them.
MeshSize{ PointsOf{ Volume{1}; } } = lc;
