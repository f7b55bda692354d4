//! Hand-written `.msh` inputs, small enough to check every number by eye.

/// One unit tet in MSH 2.2, physical tag 1, entity 1.
pub(crate) const SINGLE_TET_22: &str = "\
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
4
1 0 0 0
2 1 0 0
3 0 1 0
4 0 0 1
$EndNodes
$Elements
1
1 4 2 1 1 1 2 3 4
$EndElements
";

/// The same tet in MSH 4.1: entity volume 1 carries physical tag 7.
pub(crate) const SINGLE_TET_41: &str = "\
$MeshFormat
4.1 0 8
$EndMeshFormat
$Entities
0 0 0 1
1 0 0 0 1 1 1 1 7 0
$EndEntities
$Nodes
1 4 1 4
3 1 0 4
1
2
3
4
0 0 0
1 0 0
0 1 0
0 0 1
$EndNodes
$Elements
1 1 1 1
3 1 4 1
1 1 2 3 4
$EndElements
";

/// Two tets sharing the face (10, 20, 30), sparse node tags, named groups of dimension 3, 2 and 0,
/// plus triangles, lines and a point that are ignored with a count. MSH 2.2.
pub(crate) const MIXED_22: &str = "\
$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
3
0 3 \"tip point\"
2 2 \"clamp\"
3 1 \"body\"
$EndPhysicalNames
$Nodes
5
10 0 0 0
20 1 0 0
30 0 1 0
40 0 0 1
50 0 0 -1
$EndNodes
$Elements
7
1 15 2 3 5 50
2 2 2 2 1 10 20 40
3 2 2 2 1 20 40 10
4 1 2 0 1 10 20
5 1 2 0 1 20 40
6 4 2 1 1 10 20 30 40
7 4 2 1 1 10 30 20 50
$EndElements
";

/// The mesh of [`MIXED_22`] in MSH 4.1, with two node blocks and a skipped `$Comments` section.
pub(crate) const MIXED_41: &str = "\
$MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
3
0 3 \"tip point\"
2 2 \"clamp\"
3 1 \"body\"
$EndPhysicalNames
$Comments
anything $Nodes here is skipped
$EndComments
$Entities
1 1 1 1
5 0 0 -1 1 3
1 0 0 0 1 0 0 0 2 1 -2
1 0 0 0 1 0 1 1 2 0
1 0 0 -1 1 1 1 1 1 0
$EndEntities
$Nodes
2 5 10 50
3 1 0 4
10
20
30
40
0 0 0
1 0 0
0 1 0
0 0 1
0 5 0 1
50
0 0 -1
$EndNodes
$Elements
4 7 1 7
3 1 4 2
6 10 20 30 40
7 10 30 20 50
2 1 2 2
2 10 20 40
3 20 40 10
1 1 1 2
4 10 20
5 20 40
0 5 15 1
1 50
$EndElements
$NodeData
1
\"displacement\"
$EndNodeData
";

/// A second-order (10-node) tet, which must be refused. MSH 2.2.
pub(crate) const QUADRATIC_TET_22: &str = "\
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
10
1 0 0 0
2 1 0 0
3 0 1 0
4 0 0 1
5 0.5 0 0
6 0.5 0.5 0
7 0 0.5 0
8 0 0 0.5
9 0 0.5 0.5
10 0.5 0 0.5
$EndNodes
$Elements
1
12 11 2 1 1 1 2 3 4 5 6 7 8 9 10
$EndElements
";

/// The unit tet with nodes 2 and 3 swapped: volume −1/6 in Gmsh order. MSH 4.1.
pub(crate) const INVERTED_TET_41: &str = "\
$MeshFormat
4.1 0 8
$EndMeshFormat
$Nodes
1 4 1 4
3 1 0 4
1
2
3
4
0 0 0
1 0 0
0 1 0
0 0 1
$EndNodes
$Elements
1 1 9 9
3 1 4 1
9 1 3 2 4
$EndElements
";
