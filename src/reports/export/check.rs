//! What the checks of an export's rows share (`verify` reads the file, each kind's module checks
//! its rows): a row as read, a problem and the list of them, and the checker a kind provides. A
//! leaf: the kinds and `verify` import it, it imports neither.

use csv::StringRecord;

/// One data row of an export: its place in the file (1 for the first data row) and its fields
/// as text (NULL is empty), `row` first, in one buffer (a `String` each cost a row 17
/// allocations).
#[derive(Debug, Clone)]
pub struct Row {
    pub number: u64,
    fields: StringRecord,
}

impl Row {
    pub(super) fn new(number: u64, fields: StringRecord) -> Row {
        Row { number, fields }
    }

    /// Every field, `row` first.
    pub(super) fn fields(&self) -> &StringRecord {
        &self.fields
    }

    pub fn text(&self, column: usize) -> &str {
        self.fields.get(column).unwrap_or("")
    }
}

/// Something wrong with an export: where (row and field, when it is one row's) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub row: Option<u64>,
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.row, &self.field) {
            (Some(row), Some(field)) => write!(f, "row {row}, field {field}: {}", self.message),
            (Some(row), None) => write!(f, "row {row}: {}", self.message),
            (None, Some(field)) => write!(f, "field {field}: {}", self.message),
            (None, None) => f.write_str(&self.message),
        }
    }
}

/// The problems found so far, with the column names to name fields by; and what could not be
/// checked (notes, which are not problems).
pub struct Problems {
    columns: Vec<String>,
    pub found: Vec<Problem>,
    pub notes: Vec<String>,
}

impl Problems {
    /// No problem yet; fields are named by `columns`.
    pub(super) fn new(columns: Vec<String>) -> Problems {
        Problems {
            columns,
            found: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Something that could not be checked.
    pub fn note(&mut self, message: String) {
        self.notes.push(message);
    }

    /// A problem with `column` of `row`.
    pub fn at(&mut self, row: &Row, column: usize, message: String) {
        self.found.push(Problem {
            row: Some(row.number),
            field: self.columns.get(column).cloned(),
            message,
        });
    }

    /// A problem of the whole file.
    pub fn file(&mut self, message: String) {
        self.found.push(Problem {
            row: None,
            field: None,
            message,
        });
    }
}

/// What an export of one kind checks of its rows, one at a time in file order.
pub trait Checker {
    fn row(&mut self, row: Row, problems: &mut Problems);
    fn finish(&mut self, problems: &mut Problems);
}
