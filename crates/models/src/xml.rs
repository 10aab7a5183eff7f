//! Reading XML elements with their locations: typed attribute parsers that fail with a
//! located [`ModelError`], and the warnings list that unread attributes and elements go to.

use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};
use stiction::math::{EulerRot, Quat, Vec3};

use crate::error::{Location, ModelError, Warning, WarningKind};

/// One parsed model file and the warnings collected while reading it.
pub(crate) struct Source<'a, 'input> {
    pub file: PathBuf,
    pub doc: &'a Document<'input>,
    pub warnings: Vec<Warning>,
    /// The first visual-only item and how many there were (one summary warning per file).
    visual: Option<(Location, usize)>,
}

impl<'a, 'input> Source<'a, 'input> {
    pub fn new(file: &Path, doc: &'a Document<'input>) -> Self {
        Self {
            file: file.to_path_buf(),
            doc,
            warnings: Vec::new(),
            visual: None,
        }
    }

    /// The location of byte `pos`.
    pub fn at_pos(&self, pos: usize) -> Location {
        let p = self.doc.text_pos_at(pos);
        Location {
            file: self.file.clone(),
            line: p.row,
            column: p.col,
        }
    }

    /// The location of an element's opening tag.
    pub fn at(&self, node: Node) -> Location {
        self.at_pos(node.range().start)
    }

    /// The location of attribute `name` of `node` (the element's if it has none).
    pub fn at_attr(&self, node: Node, name: &str) -> Location {
        match node.attributes().find(|a| a.name() == name) {
            Some(a) => self.at_pos(a.range().start),
            None => self.at(node),
        }
    }

    pub fn warn(&mut self, at: Location, kind: WarningKind, message: impl Into<String>) {
        let warning = Warning {
            at,
            kind,
            message: message.into(),
        };
        // A default class read by many elements would repeat its warnings once per use.
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }

    /// Counts a visual-only item towards the file's one summary warning.
    pub fn visual(&mut self, at: Location) {
        match &mut self.visual {
            Some((_, n)) => *n += 1,
            None => self.visual = Some((at, 1)),
        }
    }

    /// The warnings, with the visual summary last.
    pub fn finish(mut self) -> Vec<Warning> {
        if let Some((at, n)) = self.visual.take() {
            self.warn(
                at,
                WarningKind::Visual,
                format!("{n} visual-only item(s) (visuals, materials, colours) are not simulated; the first is here"),
            );
        }
        self.warnings
    }

    /// Warns about every attribute of `node` not in `known`.
    pub fn check_attributes(&mut self, node: Node, known: &[&str]) {
        for a in node.attributes() {
            if !known.contains(&a.name()) {
                let at = self.at_pos(a.range().start);
                let element = node.tag_name().name();
                self.warn(
                    at,
                    WarningKind::IgnoredAttribute,
                    format!(
                        "attribute {}=\"{}\" of <{element}> is not read",
                        a.name(),
                        a.value()
                    ),
                );
            }
        }
    }

    /// Warns that element `node` (and everything in it) is not read.
    pub fn ignore_element(&mut self, node: Node) {
        let at = self.at(node);
        let name = node.tag_name().name();
        self.warn(
            at,
            WarningKind::IgnoredElement,
            format!("element <{name}> is not read"),
        );
    }

    /// Warns that a value was read but is not simulated.
    pub fn not_simulated(&mut self, node: Node, attribute: &str, why: &str) {
        let at = self.at_attr(node, attribute);
        let element = node.tag_name().name();
        self.warn(
            at,
            WarningKind::NotSimulated,
            format!("<{element}> {attribute}: {why}"),
        );
    }

    pub fn missing(&self, node: Node, what: impl Into<String>) -> ModelError {
        ModelError::Missing {
            at: self.at(node),
            element: node.tag_name().name().to_string(),
            what: what.into(),
        }
    }

    pub fn bad(&self, node: Node, attribute: &str, value: &str, expected: &str) -> ModelError {
        ModelError::BadValue {
            at: self.at_attr(node, attribute),
            attribute: attribute.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }

    /// A required attribute's text.
    pub fn required<'n>(&self, node: Node<'n, '_>, name: &str) -> Result<&'n str, ModelError> {
        node.attribute(name)
            .ok_or_else(|| self.missing(node, format!("attribute \"{name}\"")))
    }

    /// An optional list of exactly `n` finite numbers.
    pub fn numbers(
        &self,
        node: Node,
        name: &str,
        n: usize,
    ) -> Result<Option<Vec<f64>>, ModelError> {
        let Some(text) = node.attribute(name) else {
            return Ok(None);
        };
        parse_numbers(text, n)
            .map(Some)
            .ok_or_else(|| self.bad(node, name, text, &format!("expected {n} finite number(s)")))
    }

    /// An optional finite number.
    pub fn number(&self, node: Node, name: &str) -> Result<Option<f64>, ModelError> {
        Ok(self.numbers(node, name, 1)?.map(|v| v[0]))
    }

    /// An optional 3-vector.
    pub fn vec3(&self, node: Node, name: &str) -> Result<Option<Vec3>, ModelError> {
        Ok(self
            .numbers(node, name, 3)?
            .map(|v| Vec3::new(v[0], v[1], v[2])))
    }
}

/// Exactly `n` whitespace-separated finite numbers, or `None`.
pub(crate) fn parse_numbers(text: &str, n: usize) -> Option<Vec<f64>> {
    let values: Vec<f64> = text
        .split_whitespace()
        .map(|t| t.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()?;
    (values.len() == n).then_some(values)
}

/// URDF's roll-pitch-yaw: `R = Rz(yaw) Ry(pitch) Rx(roll)`, fixed axes.
pub(crate) fn rpy(roll: f64, pitch: f64, yaw: f64) -> Quat {
    Quat::from_euler(EulerRot::ZYX, yaw, pitch, roll)
}

/// Parses an XML document, mapping a syntax error to its location.
pub(crate) fn parse_document<'input>(
    file: &Path,
    text: &'input str,
) -> Result<Document<'input>, ModelError> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        ModelError::Xml {
            at: Location {
                file: file.to_path_buf(),
                line: pos.row,
                column: pos.col,
            },
            message: e.to_string(),
        }
    })
}
