//! Index algebra on expressions, shared by the passes and the strategies:
//! simplifying index terms with the variables' extents ([`simplify`]),
//! substituting a term for an index variable ([`subst`]), and extracting one
//! element of a vector expression as a scalar expression ([`elem`]).

pub mod elem;
pub mod simplify;
pub mod subst;
