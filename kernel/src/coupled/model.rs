//! The coupled model: a rigid model, a flexible body and the attachments joining them.

use super::data::Layout;
use crate::flex::{self, Fixity};
use crate::math::{Mat3, Vec3};
use crate::rigid;
use crate::storage::{full, List, Storage};
use crate::{BuildError, Capacity, Item, Real};

/// A flexible node attached to a rigid-body frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attachment<R> {
    /// Node of the flexible body (marked [`Fixity::Attached`] there).
    pub node: usize,
    /// Rigid body index.
    pub body: usize,
    /// Node position in body coordinates.
    pub(crate) local_position: Vec3<R>,
    /// The node's reference gradient vectors (the identity columns) in body coordinates.
    pub(crate) local_axes: Mat3<R>,
    /// Which of the node's 12 coordinates follow the body (bit c for coordinate c).
    pub(crate) mask: u16,
}

impl<R: Real> Attachment<R> {
    /// Where the node sits in body coordinates.
    pub fn local_position(&self) -> Vec3<R> {
        self.local_position
    }

    /// The node's reference gradient vectors ∂r/∂X, ∂r/∂Y, ∂r/∂Z (columns) in body coordinates.
    pub fn local_axes(&self) -> Mat3<R> {
        self.local_axes
    }

    /// Which of the node's 12 coordinates follow the body (bit c for coordinate c).
    pub fn mask(&self) -> u16 {
        self.mask
    }

    /// Attaches `node` to `body` as they are at t = 0 (node at its reference position, body at
    /// its initial pose).
    pub fn new<St: Storage>(
        rigid: &rigid::Model<R, St>,
        flex: &flex::Model<R, St>,
        node: usize,
        body: usize,
    ) -> Result<Self, BuildError> {
        let item = Item::Node(node);
        let x = flex
            .reference(node)
            .ok_or(BuildError::UnknownNode { item, node })?;
        let b = rigid
            .bodies()
            .get(body)
            .ok_or(BuildError::UnknownBody { item, body })?;
        let fixity = flex.fixity(node);
        if !matches!(fixity, Fixity::Attached | Fixity::AttachedFace { .. }) {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "an attached node must be marked Fixity::Attached or Fixity::AttachedFace",
            });
        }
        let rot = b
            .orientation
            .normalized()
            .unwrap_or_default()
            .to_matrix()
            .transpose();
        Ok(Self {
            node,
            body,
            local_position: rot.mul_vec(x - b.position),
            local_axes: rot,
            mask: fixity.mask(),
        })
    }
}

/// A rigid model and a flexible body joined by attachments, all kept in the storage `St`.
pub struct Model<R: Real, St: Storage> {
    pub(crate) rigid: rigid::Model<R, St>,
    pub(crate) flex: flex::Model<R, St>,
    pub(crate) attachments: St::Nodes<Attachment<R>>,
}

impl<R: Real, St: Storage> Clone for Model<R, St> {
    fn clone(&self) -> Self {
        Self {
            rigid: self.rigid.clone(),
            flex: self.flex.clone(),
            attachments: self.attachments.clone(),
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Model<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("coupled::Model")
            .field("rigid", &self.rigid)
            .field("flex", &self.flex)
            .field("attachments", &&*self.attachments)
            .finish()
    }
}

impl<R: Real, St: Storage> Model<R, St> {
    /// Starts joining `rigid` and `flex` (whose attached nodes are marked
    /// [`Fixity::Attached`] or [`Fixity::AttachedFace`]).
    pub fn builder(rigid: rigid::Model<R, St>, flex: flex::Model<R, St>) -> Builder<R, St> {
        Builder {
            model: Self {
                rigid,
                flex,
                attachments: List::empty(),
            },
        }
    }
    /// The rigid part.
    pub fn rigid(&self) -> &rigid::Model<R, St> {
        &self.rigid
    }
    /// The flexible part.
    pub fn flex(&self) -> &flex::Model<R, St> {
        &self.flex
    }
    /// The attachments, in the order added.
    pub fn attachments(&self) -> &[Attachment<R>] {
        &self.attachments
    }
    pub(crate) fn layout(&self) -> Layout {
        Layout {
            bodies: self.rigid.bodies().len(),
            nodes: self.flex.node_count(),
        }
    }
}

/// Attaches flexible nodes to a rigid body and checks the result.
pub struct Builder<R: Real, St: Storage> {
    model: Model<R, St>,
}

impl<R: Real, St: Storage> Builder<R, St> {
    /// Attaches `node` of the flexible body to rigid `body` as both are at t = 0.
    pub fn attach(&mut self, node: usize, body: usize) -> Result<(), BuildError> {
        let m = &mut self.model;
        let attachment = Attachment::new(&m.rigid, &m.flex, node, body)?;
        if m.attachments.iter().any(|a| a.node == node) {
            return Err(BuildError::InvalidParameter {
                item: Item::Node(node),
                reason: "node attached twice",
            });
        }
        let needed = m.attachments.len() + 1;
        m.attachments
            .try_push(attachment)
            .map_err(|_| full::<_, St::Nodes<Attachment<R>>>(Capacity::Nodes, needed))
    }

    /// Checks that every attachment is on one body and every node marked attached has one, and
    /// that the state fits.
    pub fn build(self) -> Result<Model<R, St>, BuildError> {
        let m = &self.model;
        if let Some(first) = m.attachments.first() {
            if let Some(a) = m.attachments.iter().find(|a| a.body != first.body) {
                return Err(BuildError::InvalidParameter {
                    item: Item::Body(a.body),
                    reason: "all attachments of a flexible body must be on one rigid body",
                });
            }
        }
        let unattached = (0..m.flex.node_count()).find(|&n| {
            matches!(m.flex.fixity(n), Fixity::Attached | Fixity::AttachedFace { .. })
                && !m.attachments.iter().any(|a| a.node == n)
        });
        if let Some(node) = unattached {
            return Err(BuildError::InvalidParameter {
                item: Item::Node(node),
                reason: "node marked attached but attached to no body",
            });
        }
        let needed = m.layout().state_len();
        if needed > St::State::<R>::capacity() {
            return Err(full::<_, St::State<R>>(Capacity::StateLength, needed));
        }
        Ok(self.model)
    }
}
