//! The ports: traits the other crates implement and compose through.
//!
//! Each trait is object-safe and needs one to three methods. Every trait is
//! implemented for `&T`, `Box<T>` and `Arc<T>` of an implementation, so a
//! `Box<dyn Metric>` or an `Arc<dyn Executor>` is itself a `Metric` or an
//! `Executor`.

mod chat;
mod execute;
mod grade;
mod metric;
mod panel;
mod shrink;
mod synthesize;
mod verify;

#[cfg(test)]
mod tests;

pub use chat::{ChatModel, ChatReply, FinishReason, Message, Role, Sampling, TokenTrace, ToolCall, ToolSpec, Usage};
pub use execute::{
    Cancel, ExecStatus, Execution, Executor, Program, PublicView, RESERVED_WORKSPACE_FILES, Solution, Timings,
    Workspace,
};
pub use grade::{Grader, GradingTask};
pub use metric::Metric;
pub use panel::BaselinePanel;
pub use shrink::Shrinker;
pub use synthesize::Synthesizer;
pub use verify::{GateResult, Verifier};

/// Implements a trait for `&T`, `Box<T>` and `Arc<T>` by forwarding every
/// listed method to `T`, so that `Box<dyn Trait>` and `Arc<dyn Trait>` are
/// themselves implementations. Every port of this crate uses it; crates
/// that define traits of their own (the roles of `sandmle-agents`) do too.
///
/// ```
/// pub trait Greeter: Send + Sync {
///     fn greet(&self, name: &str) -> String;
/// }
/// sandmle_core::forward_impls!(Greeter {
///     fn greet(&self, name: &str) -> String;
/// });
/// struct Hello;
/// impl Greeter for Hello {
///     fn greet(&self, name: &str) -> String { format!("hello {name}") }
/// }
/// let boxed: Box<dyn Greeter> = Box::new(Hello);
/// fn use_it(g: impl Greeter) -> String { g.greet("you") }
/// assert_eq!(use_it(boxed), "hello you");
/// ```
#[macro_export]
macro_rules! forward_impls {
    ($trait:ident { $(fn $m:ident(&self $(, $a:ident : $t:ty)*) -> $r:ty;)* }) => {
        impl<T: $trait + ?Sized> $trait for &T {
            $(fn $m(&self $(, $a: $t)*) -> $r { (**self).$m($($a),*) })*
        }
        impl<T: $trait + ?Sized> $trait for Box<T> {
            $(fn $m(&self $(, $a: $t)*) -> $r { (**self).$m($($a),*) })*
        }
        impl<T: $trait + ?Sized> $trait for std::sync::Arc<T> {
            $(fn $m(&self $(, $a: $t)*) -> $r { (**self).$m($($a),*) })*
        }
    };
}
pub(crate) use crate::forward_impls;
