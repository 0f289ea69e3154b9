//! Colours and printing. Colour carries status, text carries meaning: every
//! coloured value reads the same with colours off.

use std::io::{IsTerminal, Write};

use clap::ValueEnum;
use owo_colors::{OwoColorize, Stream, Style};
use serde::Serialize;

use crate::error::{Error, Result};

/// `--color`.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// `-o`: machine-readable output.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Json,
    Yaml,
}

/// How good a value is; decides its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    Good,
    Warn,
    Bad,
    Neutral,
}

/// Paints text, or leaves it alone when colours are off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    enabled: bool,
}

impl Palette {
    pub const PLAIN: Palette = Palette { enabled: false };
    pub const COLORED: Palette = Palette { enabled: true };

    pub fn for_stdout(choice: ColorChoice) -> Self {
        Self::choose(choice, Stream::Stdout)
    }

    pub fn for_stderr(choice: ColorChoice) -> Self {
        Self::choose(choice, Stream::Stderr)
    }

    fn choose(choice: ColorChoice, stream: Stream) -> Self {
        let enabled = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            // owo-colors (supports-color) knows NO_COLOR, FORCE_COLOR, dumb
            // terminals and TTYs; ask it whether it would paint.
            ColorChoice::Auto => {
                let probe = "x".if_supports_color(stream, |t| t.red()).to_string();
                probe != "x"
            }
        };
        Palette { enabled }
    }

    pub fn enabled(self) -> bool {
        self.enabled
    }

    pub fn paint(self, text: &str, style: Style) -> String {
        if self.enabled {
            text.style(style).to_string()
        } else {
            text.to_string()
        }
    }

    pub fn health(self, text: &str, health: Health) -> String {
        let style = match health {
            Health::Good => Style::new().green(),
            Health::Warn => Style::new().yellow(),
            Health::Bad => Style::new().red().bold(),
            Health::Neutral => return text.to_string(),
        };
        self.paint(text, style)
    }

    pub fn good(self, text: &str) -> String {
        self.health(text, Health::Good)
    }

    pub fn warn(self, text: &str) -> String {
        self.health(text, Health::Warn)
    }

    pub fn bad(self, text: &str) -> String {
        self.health(text, Health::Bad)
    }

    pub fn bold(self, text: &str) -> String {
        self.paint(text, Style::new().bold())
    }

    pub fn dim(self, text: &str) -> String {
        self.paint(text, Style::new().dimmed())
    }
}

/// Whether stdout is a terminal (live redraws, in-place progress lines).
pub fn stdout_is_tty() -> bool {
    std::io::stdout().is_terminal()
}

/// Writes to stdout, turning a closed pipe into a quiet stop.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes a line to stdout.
pub fn println(text: &str) -> Result<()> {
    print(&format!("{text}\n"))
}

/// Renders a value as JSON or YAML, ending with a newline.
pub fn render_machine<T: Serialize>(value: &T, format: OutputFormat) -> Result<String> {
    let text = match format {
        OutputFormat::Json => serde_json::to_string_pretty(value)
            .map(|s| s + "\n")
            .map_err(|e| Error::Io(std::io::Error::other(e)))?,
        OutputFormat::Yaml => {
            serde_yaml::to_string(value).map_err(|e| Error::Io(std::io::Error::other(e)))?
        }
    };
    Ok(text)
}

/// Drops `metadata.managedFields`, as kubectl does for -o json/yaml.
pub fn without_managed_fields(mut value: serde_json::Value) -> serde_json::Value {
    if let Some(meta) = value.get_mut("metadata").and_then(|m| m.as_object_mut()) {
        meta.remove("managedFields");
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_palette_leaves_text_alone() {
        let p = Palette::PLAIN;
        assert_eq!(p.bad("x"), "x");
        assert_eq!(p.health("True", Health::Good), "True");
        assert!(!p.enabled());
    }

    #[test]
    fn colored_palette_paints() {
        let p = Palette::COLORED;
        assert_eq!(p.good("ok"), "\u{1b}[32mok\u{1b}[0m");
        assert_eq!(p.health("n", Health::Neutral), "n");
        assert!(p.bad("x").contains("\u{1b}[31"));
    }

    #[test]
    fn explicit_choices_win() {
        assert!(Palette::for_stdout(ColorChoice::Always).enabled());
        assert!(!Palette::for_stdout(ColorChoice::Never).enabled());
        // Under `cargo test` stdout is captured, not a terminal.
        assert!(!Palette::for_stdout(ColorChoice::Auto).enabled() || stdout_is_tty());
    }

    #[test]
    fn machine_output() {
        let v = serde_json::json!({"metadata": {"name": "a", "managedFields": [1]}});
        let v = without_managed_fields(v);
        let json = render_machine(&v, OutputFormat::Json).unwrap_or_default();
        assert!(
            json.ends_with("}\n") && !json.contains("managedFields"),
            "{json}"
        );
        let yaml = render_machine(&v, OutputFormat::Yaml).unwrap_or_default();
        assert_eq!(yaml, "metadata:\n  name: a\n");
    }
}
