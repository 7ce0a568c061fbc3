//! The strategies' syntax, written from [`FORMS`].

use super::super::data::Loads;
use super::{FORMS, Value};

/// The strategies' syntax, one a line, generated from [`FORMS`]:
/// `tile group=AxB reg=AxB [shared=N]`, ...
pub fn syntax() -> Vec<String> {
    FORMS
        .iter()
        .map(|f| {
            let mut line = f.name.to_string();
            for k in f.keys {
                let v = match k.value {
                    Value::Count => "N".to_string(),
                    Value::Pair => "AxB".to_string(),
                    Value::Switch => "on|off".to_string(),
                    Value::Loads => {
                        let names: Vec<&str> = Loads::ALL.iter().map(|l| l.name()).collect();
                        names.join("|")
                    }
                    Value::Combine(these) => {
                        let names: Vec<&str> = these.iter().map(|c| c.name()).collect();
                        names.join("|")
                    }
                };
                line += &match k.optional {
                    true => format!(" [{}={v}]", k.name),
                    false => format!(" {}={v}", k.name),
                };
            }
            line
        })
        .collect()
}
