//! The writer's `let`s by number: names `t_N` (what `Writer::let_` writes)
//! recorded and looked up without hashing or copying a name.

/// A set of the writer's `let`s (`t_N`), by number: no name is hashed or
/// copied to record one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lets(Vec<bool>);

impl Lets {
    /// The `let`s named `names` (each `t_N`).
    pub fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> Lets {
        let mut lets = Lets::default();
        for n in names.into_iter().filter_map(let_number) {
            lets.insert(n);
        }
        lets
    }

    pub fn insert(&mut self, n: u32) {
        let n = n as usize;
        if self.0.len() <= n {
            self.0.resize(n + 1, false);
        }
        self.0[n] = true;
    }

    pub fn contains(&self, name: &str) -> bool {
        let_number(name).is_some_and(|n| self.0.get(n as usize) == Some(&true))
    }

    pub fn is_empty(&self) -> bool {
        !self.0.contains(&true)
    }
}

/// `N` of a name `t_N` (what [`Writer::let_`] writes).
fn let_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("t_")?;
    match digits.bytes().all(|c| c.is_ascii_digit()) && !digits.starts_with('0') {
        true => digits.parse().ok(),
        false => None,
    }
}

/// Appends `n` in decimal.
pub fn push_number(s: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut k = digits.len();
    let mut n = n;
    loop {
        k -= 1;
        digits[k] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[k..] {
        s.push(d as char);
    }
}
