//! Stopping a call between submissions: a host that must answer a signal
//! while the runtime works (Python's Ctrl-C) runs the call inside
//! [`interruptible`] with a check. Every wait of the runtime on that thread
//! asks the check once the submission it waited for is done, and a `true`
//! ends the call with [`RuntimeError::Interrupted`](crate::RuntimeError).
//! Nothing submitted is abandoned: the work before the stop has completed,
//! so the device, and the buffers the call used, stay usable.

use std::cell::RefCell;
use std::rc::Rc;

type Check = Rc<dyn Fn() -> bool>;

thread_local! {
    static CHECK: RefCell<Option<Check>> = const { RefCell::new(None) };
}

/// Runs `f` with `check` asked between its submissions on this thread (the
/// check in force before is restored after, also when `f` panics).
pub fn interruptible<R>(check: impl Fn() -> bool + 'static, f: impl FnOnce() -> R) -> R {
    let before = CHECK.with(|c| c.replace(Some(Rc::new(check))));
    let _restore = Restore(before);
    f()
}

/// Puts back the check in force before [`interruptible`].
struct Restore(Option<Check>);

impl Drop for Restore {
    fn drop(&mut self) {
        let before = self.0.take();
        CHECK.with(|c| *c.borrow_mut() = before);
    }
}

/// Whether this thread's check asks to stop (false without one).
pub(crate) fn requested() -> bool {
    let check = CHECK.with(|c| c.borrow().clone());
    check.is_some_and(|f| f())
}

#[cfg(test)]
mod tests {
    use super::{interruptible, requested};
    use std::cell::Cell;
    use std::rc::Rc;

    #[test]
    fn a_check_is_asked_only_inside_and_the_one_before_comes_back() {
        assert!(!requested());
        let asked = Rc::new(Cell::new(0));
        let counted = asked.clone();
        let inner = interruptible(
            move || {
                counted.set(counted.get() + 1);
                false
            },
            || {
                let stop = interruptible(|| true, requested);
                (stop, requested())
            },
        );
        assert_eq!(inner, (true, false));
        assert_eq!(asked.get(), 1);
        assert!(!requested());
    }
}
