//! The state of `qctl top` and how keys and refreshes change it: the queues with their
//! rates and history, the sort, the filter, the selection and the prompts. No terminal here:
//! every change is a plain method, tested without a screen.

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::fetch::{Detail, DetailRequest, Snapshot, Update, DEAD_READ_MIN};
use crate::engine::queues::{rate, Count, QueueStats};

/// Samples kept per queue for the sparklines (10 minutes at the default 2 s interval).
pub const HISTORY: usize = 300;

/// One queue as shown: its counts and the rates since the refresh before.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueRow {
    pub stats: QueueStats,
    /// Jobs acked per second since the previous refresh; None on the first one.
    pub done_rate: Option<f64>,
    /// Failed runs per second since the previous refresh; None on the first one.
    pub failed_rate: Option<f64>,
    /// What qctl consumers did in each of the last minutes, oldest first (None: a minute
    /// that could not be read).
    pub recent: Vec<Option<crate::engine::history::Tally>>,
}

impl QueueRow {
    pub fn name(&self) -> &str {
        &self.stats.queue
    }

    /// Jobs ready to run now: active and due.
    pub fn backlog(&self) -> Count {
        Some(self.stats.active? + self.stats.scheduled_due?)
    }
}

/// A queue's recent past, oldest first.
#[derive(Debug, Clone, Default)]
pub struct History {
    pub backlog: VecDeque<u64>,
    pub done_rate: VecDeque<f64>,
}

fn push<T>(series: &mut VecDeque<T>, value: T) {
    if series.len() == HISTORY {
        series.pop_front();
    }
    series.push_back(value);
}

/// The column the list is sorted by: the name ascending, every count descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Name,
    Active,
    Due,
    Later,
    InFlight,
    Dead,
    DoneRate,
    FailedRate,
}

impl SortKey {
    const ALL: [SortKey; 8] = [
        SortKey::Name,
        SortKey::Active,
        SortKey::Due,
        SortKey::Later,
        SortKey::InFlight,
        SortKey::Dead,
        SortKey::DoneRate,
        SortKey::FailedRate,
    ];

    pub fn label(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Active => "active",
            SortKey::Due => "due",
            SortKey::Later => "later",
            SortKey::InFlight => "in flight",
            SortKey::Dead => "dead",
            SortKey::DoneRate => "done/s",
            SortKey::FailedRate => "failed/s",
        }
    }

    fn next(self) -> SortKey {
        let i = Self::ALL.iter().position(|k| *k == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }

    /// The value sorted on (unknown counts last).
    fn value(self, row: &QueueRow) -> f64 {
        let count = |c: Count| c.map_or(-1.0, |n| n as f64);
        let s = &row.stats;
        match self {
            SortKey::Name => 0.0,
            SortKey::Active => count(s.active),
            SortKey::Due => count(s.scheduled_due),
            SortKey::Later => count(s.scheduled_later),
            SortKey::InFlight => count(s.in_flight),
            SortKey::Dead => count(s.dead),
            SortKey::DoneRate => row.done_rate.unwrap_or(-1.0),
            SortKey::FailedRate => row.failed_rate.unwrap_or(-1.0),
        }
    }
}

/// Which screen is shown.
#[derive(Debug, Clone, PartialEq)]
pub enum View {
    List,
    /// One queue's consumers and newest dead jobs.
    Queue(String),
}

/// A question on the bottom line that takes the keys until it is answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    /// Typing the filter.
    Filter,
    /// Pause (or resume) this queue? [y/N], with what was typed so far: Enter answers.
    Confirm {
        queue: String,
        pause: bool,
        answer: String,
    },
}

/// What a key asks the command to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Quit,
    Pause { queue: String, pause: bool },
}

/// Everything the screen shows.
#[derive(Debug)]
pub struct Model {
    /// Every queue of the last refresh, in discovery order.
    pub rows: Vec<QueueRow>,
    pub history: HashMap<String, History>,
    pub sort: SortKey,
    /// Only queues whose name contains this are listed.
    pub filter: String,
    /// The queue under the cursor, kept by name across refreshes.
    pub selected: Option<String>,
    pub view: View,
    pub prompt: Option<Prompt>,
    pub detail: Option<Detail>,
    /// The open queue's dead jobs shown from this one on (0: the newest).
    pub dead_offset: u64,
    /// How many dead jobs the last drawing had room for.
    pub dead_rows: Cell<u16>,
    /// What the refresher was last asked to read besides the counts.
    asked: Option<DetailRequest>,
    /// The error of the last refresh, until one succeeds.
    pub error: Option<String>,
    /// The outcome of the last change (pause, resume), until the next key.
    pub message: Option<String>,
    pub last: Option<Snapshot>,
    pub server: String,
    pub interval: Duration,
    pub orphan_after: Duration,
}

impl Model {
    pub fn new(server: &str, interval: Duration, orphan_after: Duration) -> Model {
        Model {
            rows: Vec::new(),
            history: HashMap::new(),
            sort: SortKey::Name,
            filter: String::new(),
            selected: None,
            view: View::List,
            prompt: None,
            detail: None,
            dead_offset: 0,
            dead_rows: Cell::new(0),
            asked: None,
            error: None,
            message: None,
            last: None,
            server: server.to_string(),
            interval,
            orphan_after,
        }
    }

    /// Takes in what the refresher read.
    pub fn apply(&mut self, update: Update) {
        match update {
            Update::Queues(snapshot) => self.take_snapshot(snapshot),
            Update::Detail(detail) => {
                if self.view == View::Queue(detail.queue.clone()) {
                    self.detail = Some(detail);
                }
            }
            Update::Paused {
                queue,
                pause,
                changed,
            } => {
                let state = if pause { "paused" } else { "running" };
                self.message = Some(if changed {
                    format!("queue {queue:?} is {state}")
                } else {
                    format!("queue {queue:?} was already {state}")
                });
            }
            Update::Error(e) => self.error = Some(e),
        }
    }

    fn take_snapshot(&mut self, snapshot: Snapshot) {
        let before: HashMap<&str, &QueueStats> = self
            .last
            .iter()
            .flat_map(|l| l.stats.iter().map(|s| (s.queue.as_str(), s)))
            .collect();
        let secs = self
            .last
            .as_ref()
            .map(|l| snapshot.at.duration_since(l.at).as_secs_f64());
        let rows: Vec<QueueRow> = snapshot
            .stats
            .iter()
            .map(|s| {
                let b = before.get(s.queue.as_str()).zip(secs);
                QueueRow {
                    stats: s.clone(),
                    done_rate: b.and_then(|(b, secs)| rate(s.completed, b.completed, secs)),
                    failed_rate: b.and_then(|(b, secs)| rate(s.failed, b.failed, secs)),
                    recent: snapshot
                        .recent
                        .get(&s.queue)
                        .map(|r| r.to_vec())
                        .unwrap_or_default(),
                }
            })
            .collect();
        self.history
            .retain(|name, _| rows.iter().any(|r| r.name() == name));
        for row in &rows {
            let h = self.history.entry(row.name().to_string()).or_default();
            if let Some(b) = row.backlog() {
                push(&mut h.backlog, b);
            }
            if let Some(r) = row.done_rate {
                push(&mut h.done_rate, r);
            }
        }
        self.rows = rows;
        self.last = Some(snapshot);
        self.error = None;
    }

    /// The queues listed: filtered, then sorted.
    pub fn visible(&self) -> Vec<&QueueRow> {
        let mut rows: Vec<&QueueRow> = self
            .rows
            .iter()
            .filter(|r| r.name().contains(self.filter.as_str()))
            .collect();
        let key = self.sort;
        rows.sort_by(|a, b| {
            key.value(b)
                .total_cmp(&key.value(a))
                .then_with(|| a.name().cmp(b.name()))
        });
        rows
    }

    /// The position of the cursor in [`Model::visible`]: the selected queue, else the first.
    pub fn cursor(&self) -> Option<usize> {
        let rows = self.visible();
        if rows.is_empty() {
            return None;
        }
        Some(
            self.selected
                .as_deref()
                .and_then(|s| rows.iter().position(|r| r.name() == s))
                .unwrap_or(0),
        )
    }

    /// The queue under the cursor.
    pub fn current(&self) -> Option<&QueueRow> {
        let i = self.cursor()?;
        self.visible().get(i).copied()
    }

    /// The row of a queue by name.
    pub fn row(&self, name: &str) -> Option<&QueueRow> {
        self.rows.iter().find(|r| r.name() == name)
    }

    fn move_cursor(&mut self, by: isize) {
        let Some(i) = self.cursor() else { return };
        let rows = self.visible();
        let j = (i as isize + by).clamp(0, rows.len() as isize - 1) as usize;
        self.selected = Some(rows[j].name().to_string());
    }

    /// Handles one key; what the command must do, if anything.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return Some(Action::Quit);
        }
        self.message = None;
        match self.prompt.take() {
            Some(Prompt::Filter) => {
                match key.code {
                    KeyCode::Char(c) => {
                        self.filter.push(c);
                        self.prompt = Some(Prompt::Filter);
                    }
                    KeyCode::Backspace => {
                        self.filter.pop();
                        self.prompt = Some(Prompt::Filter);
                    }
                    KeyCode::Esc => self.filter.clear(),
                    KeyCode::Enter => {}
                    _ => self.prompt = Some(Prompt::Filter),
                }
                return None;
            }
            // A whole word and Enter answer, as at the questions of the other commands:
            // `yes` typed whole goes ahead; no letter of it is taken for a key of top.
            Some(Prompt::Confirm {
                queue,
                pause,
                mut answer,
            }) => {
                match key.code {
                    KeyCode::Char(c) => answer.push(c),
                    KeyCode::Backspace => {
                        answer.pop();
                    }
                    KeyCode::Enter => match crate::engine::text::yes_or_no(&answer) {
                        Some(true) => return Some(Action::Pause { queue, pause }),
                        Some(false) => {
                            self.message = Some(format!("queue {queue:?} left as it was"));
                            return None;
                        }
                        None => {
                            self.message = Some("answer y or n".into());
                            answer.clear();
                        }
                    },
                    KeyCode::Esc => {
                        self.message = Some(format!("queue {queue:?} left as it was"));
                        return None;
                    }
                    _ => {}
                }
                self.prompt = Some(Prompt::Confirm {
                    queue,
                    pause,
                    answer,
                });
                return None;
            }
            None => {}
        }
        match key.code {
            KeyCode::Char('q') => return Some(Action::Quit),
            KeyCode::Char('p') => {
                let queue = match &self.view {
                    View::Queue(q) => Some(q.clone()),
                    View::List => self.current().map(|r| r.name().to_string()),
                };
                if let Some(queue) = queue {
                    let paused = self.row(&queue).is_some_and(|r| r.stats.paused);
                    self.prompt = Some(Prompt::Confirm {
                        queue,
                        pause: !paused,
                        answer: String::new(),
                    });
                }
            }
            _ if matches!(self.view, View::Queue(_)) => match key.code {
                KeyCode::Esc | KeyCode::Left | KeyCode::Backspace | KeyCode::Enter => {
                    self.view = View::List;
                    self.detail = None;
                }
                KeyCode::Up | KeyCode::Char('k') => self.scroll_dead(-1),
                KeyCode::Down | KeyCode::Char('j') => self.scroll_dead(1),
                KeyCode::PageUp => self.scroll_dead(-(self.page() as i64)),
                KeyCode::PageDown => self.scroll_dead(self.page() as i64),
                KeyCode::Home => self.scroll_dead(i64::MIN / 2),
                KeyCode::End => self.scroll_dead(i64::MAX / 2),
                _ => {}
            },
            KeyCode::Up | KeyCode::Char('k') => self.move_cursor(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_cursor(1),
            KeyCode::PageUp => self.move_cursor(-10),
            KeyCode::PageDown => self.move_cursor(10),
            KeyCode::Home => self.move_cursor(isize::MIN / 2),
            KeyCode::End => self.move_cursor(isize::MAX / 2),
            KeyCode::Enter | KeyCode::Right => {
                let queue = self.current()?.name().to_string();
                self.selected = Some(queue.clone());
                self.view = View::Queue(queue);
                self.detail = None;
                self.dead_offset = 0;
            }
            KeyCode::Char('s') => self.sort = self.sort.next(),
            KeyCode::Char('/') => self.prompt = Some(Prompt::Filter),
            KeyCode::Esc => self.filter.clear(),
            _ => {}
        }
        None
    }

    /// Dead jobs a page key moves by: the rows shown, less one kept in view.
    fn page(&self) -> u64 {
        u64::from(self.dead_rows.get()).saturating_sub(1).max(1)
    }

    /// Scrolls the open queue's dead jobs by `by` rows, within those there are: the last
    /// page is a full one.
    fn scroll_dead(&mut self, by: i64) {
        let Some(total) = self.detail.as_ref().map(|d| d.dead_total) else {
            return;
        };
        let last = total.saturating_sub(u64::from(self.dead_rows.get()).max(1));
        let to = (self.dead_offset as i64).saturating_add(by);
        self.dead_offset = (to.max(0) as u64).min(last);
    }

    /// What the refresher must now be asked to read besides the counts, when that changed
    /// (`Some(None)`: nothing more): the open queue, and its dead jobs around those shown, a
    /// page before and after them, so that scrolling finds them read.
    pub fn next_request(&mut self) -> Option<Option<DetailRequest>> {
        let wanted = match &self.view {
            View::List => None,
            View::Queue(queue) => {
                let rows = u64::from(self.dead_rows.get()).max(1);
                match &self.asked {
                    Some(asked) if asked.covers(queue, self.dead_offset, rows) => {
                        return None;
                    }
                    _ => Some(DetailRequest {
                        queue: queue.clone(),
                        offset: self.dead_offset.saturating_sub(rows),
                        count: (3 * rows).max(DEAD_READ_MIN),
                    }),
                }
            }
        };
        if wanted == self.asked {
            return None;
        }
        self.asked = wanted.clone();
        Some(wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn stats(queue: &str, active: u64, completed: u64) -> QueueStats {
        QueueStats {
            queue: queue.into(),
            active: Some(active),
            scheduled_due: Some(1),
            scheduled_later: Some(0),
            in_flight: Some(0),
            dead: Some(0),
            consumers_alive: Some(0),
            consumers_expired: Some(0),
            completed: Some(completed),
            failed: Some(0),
            ..QueueStats::default()
        }
    }

    fn snapshot(at: Instant, stats: Vec<QueueStats>) -> Update {
        Update::Queues(Snapshot {
            at,
            time: 0.0,
            stats,
            round_trips: 2,
            unreadable: 0,
            untagged: 0,
            incomplete: false,
            keys_scanned: 0,
            first_minute: 0,
            recent: Default::default(),
        })
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn names(m: &Model) -> Vec<&str> {
        m.visible().iter().map(|r| r.name()).collect()
    }

    fn model(stats: Vec<QueueStats>) -> Model {
        let mut m = Model::new(
            "127.0.0.1:6379",
            Duration::from_secs(2),
            Duration::from_secs(120),
        );
        m.apply(snapshot(Instant::now(), stats));
        m
    }

    #[test]
    fn rates_come_from_the_counters_between_two_refreshes() {
        let t0 = Instant::now();
        let mut m = Model::new("s", Duration::from_secs(2), Duration::from_secs(120));
        m.apply(snapshot(t0, vec![stats("mail", 10, 100)]));
        assert_eq!(m.rows[0].done_rate, None);
        m.apply(snapshot(
            t0 + Duration::from_secs(2),
            vec![stats("mail", 4, 110)],
        ));
        assert_eq!(m.rows[0].done_rate, Some(5.0));
        assert_eq!(m.rows[0].failed_rate, Some(0.0));
        let h = &m.history["mail"];
        assert_eq!(h.backlog, [11, 5]);
        assert_eq!(h.done_rate, [5.0]);
    }

    #[test]
    fn a_counter_that_went_back_reads_as_no_progress() {
        assert_eq!(rate(Some(3), Some(10), 2.0), Some(0.0));
        assert_eq!(rate(None, Some(10), 2.0), None);
    }

    #[test]
    fn history_is_bounded_and_forgets_vanished_queues() {
        let t0 = Instant::now();
        let mut m = Model::new("s", Duration::from_secs(2), Duration::from_secs(120));
        for i in 0..HISTORY + 5 {
            m.apply(snapshot(
                t0 + Duration::from_secs(i as u64),
                vec![stats("a", i as u64, 0), stats("b", 0, 0)],
            ));
        }
        assert_eq!(m.history["a"].backlog.len(), HISTORY);
        assert_eq!(m.history["a"].backlog.back(), Some(&(HISTORY as u64 + 5)));
        m.apply(snapshot(
            t0 + Duration::from_secs(999),
            vec![stats("a", 0, 0)],
        ));
        assert!(!m.history.contains_key("b"));
    }

    #[test]
    fn s_cycles_the_sort_and_counts_sort_descending() {
        let mut m = model(vec![stats("a", 1, 0), stats("b", 9, 0), stats("c", 5, 0)]);
        assert_eq!(names(&m), ["a", "b", "c"]);
        m.on_key(key(KeyCode::Char('s')));
        assert_eq!(m.sort, SortKey::Active);
        assert_eq!(names(&m), ["b", "c", "a"]);
    }

    #[test]
    fn the_filter_narrows_the_list_and_esc_clears_it() {
        let mut m = model(vec![
            stats("mail", 0, 0),
            stats("sms", 0, 0),
            stats("mail-eu", 0, 0),
        ]);
        m.on_key(key(KeyCode::Char('/')));
        for c in "mai".chars() {
            m.on_key(key(KeyCode::Char(c)));
        }
        assert_eq!(names(&m), ["mail", "mail-eu"]);
        // Typed keys go to the filter, not to the commands.
        assert_eq!(m.on_key(key(KeyCode::Char('q'))), None);
        assert_eq!(m.filter, "maiq");
        m.on_key(key(KeyCode::Backspace));
        m.on_key(key(KeyCode::Enter));
        assert_eq!(m.prompt, None);
        assert_eq!(names(&m), ["mail", "mail-eu"]);
        m.on_key(key(KeyCode::Esc));
        assert_eq!(names(&m).len(), 3);
    }

    #[test]
    fn the_selection_follows_the_queue_across_refreshes() {
        let mut m = model(vec![stats("a", 0, 0), stats("b", 0, 0), stats("c", 0, 0)]);
        assert_eq!(m.cursor(), Some(0));
        m.on_key(key(KeyCode::Down));
        m.on_key(key(KeyCode::Down));
        m.on_key(key(KeyCode::Down));
        assert_eq!(m.current().map(QueueRow::name), Some("c"));
        m.apply(snapshot(
            Instant::now(),
            vec![stats("0", 0, 0), stats("a", 0, 0), stats("c", 0, 0)],
        ));
        assert_eq!(m.current().map(QueueRow::name), Some("c"));
        assert_eq!(m.cursor(), Some(2));
    }

    #[test]
    fn enter_opens_a_queue_and_esc_goes_back() {
        let mut m = model(vec![stats("a", 0, 0), stats("b", 0, 0)]);
        assert_eq!(m.next_request(), None);
        m.on_key(key(KeyCode::Down));
        assert_eq!(m.on_key(key(KeyCode::Enter)), None);
        assert_eq!(m.view, View::Queue("b".into()));
        let asked = m
            .next_request()
            .expect("a request")
            .expect("the detail of b");
        assert_eq!((asked.queue.as_str(), asked.offset), ("b", 0));
        assert_eq!(m.next_request(), None, "asked once");
        assert_eq!(m.on_key(key(KeyCode::Esc)), None);
        assert_eq!(m.view, View::List);
        assert_eq!(m.next_request(), Some(None));
    }

    fn dead(queue: &str, offset: u64, shown: u64, total: u64) -> Update {
        Update::Detail(Detail {
            queue: queue.into(),
            now: 0.0,
            consumers: Vec::new(),
            described: Vec::new(),
            processes: Vec::new(),
            dead: (offset..offset + shown)
                .map(|i| crate::engine::listing::Entry {
                    id: format!("job-{i}"),
                    score: Some(0.0),
                    job: None,
                    raw: None,
                    failure: None,
                    failure_raw: None,
                    size: 0,
                })
                .collect(),
            dead_offset: offset,
            dead_total: total,
        })
    }

    #[test]
    fn the_dead_jobs_of_an_open_queue_scroll_and_are_read_around_those_shown() {
        let mut m = model(vec![stats("a", 0, 0)]);
        m.on_key(key(KeyCode::Enter));
        m.dead_rows.set(5);
        let asked = m.next_request().unwrap().unwrap();
        assert_eq!((asked.offset, asked.count), (0, DEAD_READ_MIN));
        // Nothing scrolls before the dead jobs are read.
        m.on_key(key(KeyCode::Down));
        assert_eq!(m.dead_offset, 0);
        m.apply(dead("a", 0, 30, 100));
        m.on_key(key(KeyCode::Down));
        m.on_key(key(KeyCode::Char('j')));
        assert_eq!(m.dead_offset, 2);
        m.on_key(key(KeyCode::Up));
        assert_eq!(m.dead_offset, 1);
        m.on_key(key(KeyCode::PageDown));
        assert_eq!(m.dead_offset, 5);
        assert_eq!(m.next_request(), None, "rows 5..10 were read");
        m.on_key(key(KeyCode::End));
        assert_eq!(m.dead_offset, 95, "the last page is full");
        let asked = m.next_request().unwrap().unwrap();
        assert!(asked.covers("a", 95, 5), "{asked:?}");
        m.on_key(key(KeyCode::Home));
        assert_eq!(m.dead_offset, 0);
        // The list's keys do not move the cursor in the queue's view.
        assert_eq!(m.view, View::Queue("a".into()));
    }

    #[test]
    fn p_asks_before_pausing_and_a_typed_answer_with_enter_decides() {
        let mut m = model(vec![stats("a", 0, 0)]);
        let confirm = |pause: bool, answer: &str| {
            Some(Prompt::Confirm {
                queue: "a".into(),
                pause,
                answer: answer.into(),
            })
        };
        let typed = |m: &mut Model, text: &str| {
            text.chars()
                .map(|c| m.on_key(key(KeyCode::Char(c))))
                .collect::<Vec<_>>()
        };
        assert_eq!(m.on_key(key(KeyCode::Char('p'))), None);
        assert_eq!(m.prompt, confirm(true, ""));
        // `no` and Enter: nothing done, and `o` is no key of top.
        assert_eq!(typed(&mut m, "no"), [None, None]);
        assert_eq!(m.prompt, confirm(true, "no"));
        assert_eq!(m.on_key(key(KeyCode::Enter)), None);
        assert_eq!(m.prompt, None);
        assert_eq!(m.view, View::List);
        // Enter alone is no; Esc leaves it too.
        m.on_key(key(KeyCode::Char('p')));
        assert_eq!(m.on_key(key(KeyCode::Enter)), None);
        assert_eq!(m.prompt, None);
        m.on_key(key(KeyCode::Char('p')));
        assert_eq!(m.on_key(key(KeyCode::Esc)), None);
        assert_eq!(m.prompt, None);
        // Anything else asks again.
        m.on_key(key(KeyCode::Char('p')));
        typed(&mut m, "maybe");
        assert_eq!(m.on_key(key(KeyCode::Enter)), None);
        assert_eq!(m.prompt, confirm(true, ""));
        // `yes` and Enter pause it; `s` does not sort, Enter does not open the queue.
        let sort = m.sort;
        assert_eq!(typed(&mut m, "yex"), [None, None, None]);
        m.on_key(key(KeyCode::Backspace));
        typed(&mut m, "S");
        assert_eq!(
            m.on_key(key(KeyCode::Enter)),
            Some(Action::Pause {
                queue: "a".into(),
                pause: true
            })
        );
        assert_eq!(m.sort, sort);
        assert_eq!(m.view, View::List);
        let mut paused = stats("a", 0, 0);
        paused.paused = true;
        m.apply(snapshot(Instant::now(), vec![paused]));
        m.on_key(key(KeyCode::Char('p')));
        assert_eq!(m.prompt, confirm(false, ""));
    }

    #[test]
    fn q_and_ctrl_c_quit_and_an_error_lasts_until_a_refresh_succeeds() {
        let mut m = model(vec![stats("a", 0, 0)]);
        m.apply(Update::Error("connection refused".into()));
        assert_eq!(m.rows.len(), 1, "the last counts stay on screen");
        assert!(m.error.is_some());
        m.apply(snapshot(Instant::now(), vec![stats("a", 0, 0)]));
        assert_eq!(m.error, None);
        assert_eq!(m.on_key(key(KeyCode::Char('q'))), Some(Action::Quit));
        m.on_key(key(KeyCode::Char('/')));
        assert_eq!(
            m.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
    }
}
