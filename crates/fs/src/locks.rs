//! Path-level read/write locks: mutations of one file are serialised and a reader never sees a
//! half-done edit, while different files never wait for each other.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

/// The lock table shared by every call of one session. Cheap to clone.
///
/// Entries live only while someone holds or waits for them: the table keeps weak references
/// and sweeps dead ones as it grows, so it stays as small as the set of files in use.
#[derive(Debug, Clone, Default)]
pub struct FileLocks {
    table: Arc<Mutex<Table>>,
}

#[derive(Debug, Default)]
struct Table {
    locks: HashMap<PathBuf, Weak<RwLock<()>>>,
    /// Sweep when the table reaches this size; doubles with the live entries after a sweep.
    sweep_at: usize,
}

/// Fewest entries before the first sweep.
const MIN_SWEEP_AT: usize = 64;

impl FileLocks {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Shared access to `path` (a canonical path): waits while a writer holds it.
    pub async fn read(&self, path: &Path) -> OwnedRwLockReadGuard<()> {
        self.lock_for(path).read_owned().await
    }

    /// Exclusive access to `path` (a canonical path): waits for readers and writers.
    pub async fn write(&self, path: &Path) -> OwnedRwLockWriteGuard<()> {
        self.lock_for(path).write_owned().await
    }

    /// Entries currently in the table (live or not yet swept).
    pub fn len(&self) -> usize {
        self.table().locks.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock_for(&self, path: &Path) -> Arc<RwLock<()>> {
        let mut table = self.table();
        if let Some(lock) = table.locks.get(path).and_then(Weak::upgrade) {
            return lock;
        }
        let lock = Arc::new(RwLock::new(()));
        table
            .locks
            .insert(path.to_path_buf(), Arc::downgrade(&lock));
        if table.locks.len() >= table.sweep_at.max(MIN_SWEEP_AT) {
            table.locks.retain(|_, weak| weak.strong_count() > 0);
            table.sweep_at = table.locks.len() * 2;
        }
        lock
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        // The table holds no invariant a panic could break.
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn writers_of_one_file_exclude_each_other_and_readers() {
        let locks = FileLocks::new();
        let path = Path::new("/ws/a.txt");
        let held = locks.write(path).await;
        let waiting = tokio::time::timeout(Duration::from_millis(50), locks.read(path)).await;
        assert!(waiting.is_err(), "a reader waits for the writer");
        drop(held);
        let _reader = locks.read(path).await;
        let _second_reader = locks.read(path).await;
    }

    #[tokio::test]
    async fn different_files_never_wait_for_each_other() {
        let locks = FileLocks::new();
        let _a = locks.write(Path::new("/ws/a")).await;
        let b = tokio::time::timeout(Duration::from_millis(50), locks.write(Path::new("/ws/b")));
        assert!(b.await.is_ok());
    }

    #[tokio::test]
    async fn the_table_does_not_grow_without_bound() {
        let locks = FileLocks::new();
        for n in 0..10_000 {
            let _guard = locks.write(&PathBuf::from(format!("/ws/{n}"))).await;
        }
        assert!(locks.len() <= MIN_SWEEP_AT, "{} entries", locks.len());
        let _kept = locks.write(Path::new("/ws/kept")).await;
        for n in 0..1_000 {
            let _guard = locks.read(&PathBuf::from(format!("/ws/{n}"))).await;
        }
        assert!(locks.table().locks.contains_key(Path::new("/ws/kept")));
    }
}
