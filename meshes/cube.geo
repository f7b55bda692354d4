// Unit cube [0, 1]^3 with named bottom (z = 0) and top (z = 1) faces.
// Mesh size: `-setnumber lc 0.25` (default 0.25) or `-clmax`; use `-order 1` (linear tets).
SetFactory("OpenCASCADE");

DefineConstant[ lc = {0.25, Min 0.01, Max 1, Name "Parameters/Characteristic length"} ];

Box(1) = {0, 0, 0, 1, 1, 1};

eps = 1e-6;
bottom() = Surface In BoundingBox{-eps, -eps, -eps, 1 + eps, 1 + eps, eps};
top() = Surface In BoundingBox{-eps, -eps, 1 - eps, 1 + eps, 1 + eps, 1 + eps};

Physical Volume("cube", 1) = {1};
Physical Surface("bottom", 2) = {bottom()};
Physical Surface("top", 3) = {top()};

Mesh.CharacteristicLengthMax = lc;
Mesh.ElementOrder = 1;
