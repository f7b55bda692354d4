// Unit cube [0, 1]^3 with named bottom (z = 0) and top (z = 1) faces.
// Mesh size: `-setnumber lc 0.2` (default 0.2) or `-clmax`; mesh with `-order 1` (linear tets, the default).
SetFactory("OpenCASCADE");

DefineConstant[ lc = {0.2, Min 0.01, Max 1, Name "Parameters/Characteristic length"} ];

Box(1) = {0, 0, 0, 1, 1, 1};

eps = 1e-6;
bottom() = Surface In BoundingBox{-eps, -eps, -eps, 1 + eps, 1 + eps, eps};
top() = Surface In BoundingBox{-eps, -eps, 1 - eps, 1 + eps, 1 + eps, 1 + eps};

Physical Volume("cube", 1) = {1};
Physical Surface("bottom", 2) = {bottom()};
Physical Surface("top", 3) = {top()};

// Sizes at the corner points (not Mesh.CharacteristicLengthMax) so that `-clmax` still caps them.
MeshSize{ PointsOf{ Volume{1}; } } = lc;
