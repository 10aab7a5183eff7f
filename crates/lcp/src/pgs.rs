//! (in progress)
/// Options for projected Gauss-Seidel (placeholder, being written).
#[derive(Clone, Debug, Default)]
pub struct PgsOptions {}
