//! The editor's buffers, for the file tools (`fs/read_text_file`, `fs/write_text_file`),
//! when the editor says it offers them: unsaved changes are what the model reads and edits.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, SessionId, WriteTextFileRequest};
use async_trait::async_trait;
use rein_tools::EditorFiles;

/// The editor's files, through its connection.
pub struct ClientFiles {
    pub connection: ConnectionTo<Client>,
    /// The session's id and workspace, set once it started.
    pub session: Arc<OnceLock<(SessionId, PathBuf)>>,
    pub reads: bool,
    pub writes: bool,
}

impl ClientFiles {
    fn session(&self) -> Result<SessionId, String> {
        (self.session.get())
            .map(|(id, _)| id.clone())
            .ok_or_else(|| "the session has not started".to_string())
    }
}

#[async_trait]
impl EditorFiles for ClientFiles {
    fn reads(&self) -> bool {
        self.reads
    }

    fn writes(&self) -> bool {
        self.writes
    }

    async fn read(&self, path: &Path) -> Result<String, String> {
        let request = ReadTextFileRequest::new(self.session()?, path.to_path_buf());
        (self.connection.send_request(request).block_task().await)
            .map(|answer| answer.content)
            .map_err(|e| e.message)
    }

    async fn write(&self, path: &Path, text: &str) -> Result<(), String> {
        let request = WriteTextFileRequest::new(self.session()?, path.to_path_buf(), text);
        (self.connection.send_request(request).block_task().await)
            .map(|_| ())
            .map_err(|e| e.message)
    }
}
