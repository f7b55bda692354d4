//! How a scene's rigid bodies are described to the solver: joint coordinates (the kernel's
//! tree, one coordinate per joint) or Cartesian coordinates (every body free, joints as
//! constraints), or the compiler's choice.

/// The formulation a scene asks for (`[simulation] formulation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Formulation {
    /// Joint coordinates where the rigid part is an open tree the tree model supports,
    /// Cartesian otherwise.
    #[default]
    Auto,
    /// Joint coordinates; an error naming the item that keeps the scene from them.
    Tree,
    /// Cartesian coordinates with joint constraints.
    Cartesian,
}

/// The names scene files use, in the order of [`Formulation::from_name`].
pub const FORMULATION_NAMES: [&str; 3] = ["auto", "tree", "cartesian"];

impl Formulation {
    /// The formulation called `name`; `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Self::Auto),
            "tree" => Some(Self::Tree),
            "cartesian" => Some(Self::Cartesian),
            _ => None,
        }
    }

    /// The name, as written in scene files.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Tree => "tree",
            Self::Cartesian => "cartesian",
        }
    }
}
