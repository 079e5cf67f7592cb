//! `qctl top`, the full-screen view: `fetch` reads Redis on a task of its own, `model` holds
//! the state and turns keys and refreshes into changes, `view` draws the model, `terminal`
//! owns the screen and the keys. `commands/top.rs` wires them together.

pub mod fetch;
pub mod model;
pub mod terminal;
pub mod view;
