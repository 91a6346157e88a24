//! Notebooks: read_file shows cells with ids and outputs (a drawn picture as an image), and
//! notebook_edit replaces, inserts and deletes cells leaving every other byte as Jupyter
//! wrote it.

use serde_json::{Value, json};

use crate::support::Workspace;

const NOTEBOOK: &str = include_str!("fixtures/analysis.ipynb");

fn cells(ws: &Workspace) -> Vec<Value> {
    let text = std::fs::read_to_string(ws.root.join("analysis.ipynb")).unwrap();
    let notebook: Value = serde_json::from_str(&text).unwrap();
    notebook["cells"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_notebook_is_read_as_cells_with_their_outputs() {
    let ws = Workspace::new();
    ws.write("analysis.ipynb", NOTEBOOK);
    let out = ws
        .call("read_file", json!({"path": "analysis.ipynb"}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    let text = &out.text;
    assert!(
        text.starts_with("analysis.ipynb: Jupyter notebook, 4 cells (python).\n"),
        "{text}"
    );
    assert!(
        text.contains("<cell id=\"a1b2c3d4\" type=\"markdown\">\n# Sales analysis\nLoads"),
        "{text}"
    );
    assert!(
        text.contains("<output cell=\"e5f6a7b8\">\nrows: 120\n</output>"),
        "{text}"
    );
    assert!(
        text.contains("<output cell=\"c9d0e1f2\">\n[image 1×1]\n</output>"),
        "{text}"
    );
    assert!(
        text.contains("KeyError: 'price'") && !text.contains('\u{1b}'),
        "{text}"
    );
    assert_eq!(out.media.len(), 1, "the plot is shown as an image");
}

#[tokio::test]
async fn replacing_a_cell_leaves_every_other_byte_alone() {
    let ws = Workspace::new();
    ws.write("analysis.ipynb", NOTEBOOK);
    let out = ws
        .call(
            "notebook_edit",
            json!({"notebook_path": "analysis.ipynb", "cell_id": "e5f6a7b8",
                   "new_source": "df = pd.read_csv('sales.csv', parse_dates=['day'])\nlen(df)"}),
        )
        .await;
    assert_eq!(out.text, "Replaced cell e5f6a7b8 in analysis.ipynb.");
    let after = std::fs::read_to_string(ws.root.join("analysis.ipynb")).unwrap();
    // The cell before and everything after it are byte-identical.
    let start = NOTEBOOK
        .find("  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1")
        .unwrap();
    let next = NOTEBOOK
        .find("  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 2")
        .unwrap();
    assert_eq!(&after[..start], &NOTEBOOK[..start]);
    let tail = &NOTEBOOK[next - 4..];
    assert!(after.ends_with(tail), "{after}");
    let cell = &cells(&ws)[1];
    assert_eq!(
        cell["source"],
        json!([
            "df = pd.read_csv('sales.csv', parse_dates=['day'])\n",
            "len(df)"
        ])
    );
    assert_eq!(
        (cell["outputs"].clone(), cell["execution_count"].clone()),
        (json!([]), Value::Null)
    );
    assert_eq!(cell["id"], "e5f6a7b8");
    // Laid out as Jupyter lays it out: one space per level.
    assert!(after.contains("  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"e5f6a7b8\""), "{after}");
}

#[tokio::test]
async fn cells_are_inserted_after_a_cell_or_at_the_top_and_deleted() {
    let ws = Workspace::new();
    ws.write("analysis.ipynb", NOTEBOOK);
    let call = |args: Value| ws.call("notebook_edit", args);
    let out = call(
        json!({"notebook_path": "analysis.ipynb", "cell_id": "c9d0e1f2",
        "edit_mode": "insert", "cell_type": "markdown", "new_source": "## Prices"}),
    )
    .await;
    assert!(
        out.text.starts_with("Inserted markdown cell "),
        "{}",
        out.text
    );
    let top = call(
        json!({"notebook_path": "analysis.ipynb", "edit_mode": "insert",
        "cell_type": "code", "new_source": "%matplotlib inline"}),
    )
    .await;
    assert!(!top.is_error, "{}", top.text);
    let now = cells(&ws);
    let sources: Vec<String> = now.iter().map(|c| c["source"].to_string()).collect();
    assert_eq!(now.len(), 6);
    assert_eq!(sources[0], r#"["%matplotlib inline"]"#);
    assert_eq!(now[4]["source"], json!(["## Prices"]));
    assert_eq!(now[4]["id"].as_str().unwrap().len(), 8);

    let gone = call(
        json!({"notebook_path": "analysis.ipynb", "cell_id": "0a1b2c3d",
        "edit_mode": "delete", "new_source": ""}),
    )
    .await;
    assert_eq!(gone.text, "Deleted cell 0a1b2c3d in analysis.ipynb.");
    assert_eq!(cells(&ws).len(), 5);

    let unknown = call(json!({"notebook_path": "analysis.ipynb", "cell_id": "nope",
        "new_source": "x"}))
    .await;
    assert!(
        unknown.is_error && unknown.text.contains("no cell has the id \"nope\""),
        "{}",
        unknown.text
    );
    let untyped = call(
        json!({"notebook_path": "analysis.ipynb", "edit_mode": "insert",
        "new_source": "x"}),
    )
    .await;
    assert!(
        untyped.is_error && untyped.text.contains("cell_type"),
        "{}",
        untyped.text
    );
}

#[tokio::test]
async fn an_old_notebook_without_ids_is_edited_by_position() {
    let ws = Workspace::new();
    let old = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\"a = 1\"]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 2\n}\n";
    ws.write("analysis.ipynb", old);
    let out = ws
        .call(
            "notebook_edit",
            json!({"notebook_path": "analysis.ipynb", "cell_id": "cell-0", "new_source": "a = 2"}),
        )
        .await;
    assert_eq!(out.text, "Replaced cell cell-0 in analysis.ipynb.");
    assert_eq!(cells(&ws)[0]["source"], json!(["a = 2"]));
    let emptied = ws
        .call("notebook_edit", json!({"notebook_path": "analysis.ipynb", "cell_id": "cell-0", "edit_mode": "delete", "new_source": ""}))
        .await;
    assert!(!emptied.is_error, "{}", emptied.text);
    assert_eq!(cells(&ws).len(), 0);
    let first = ws
        .call("notebook_edit", json!({"notebook_path": "analysis.ipynb", "edit_mode": "insert", "cell_type": "code", "new_source": "b = 3"}))
        .await;
    assert!(!first.is_error, "{}", first.text);
    assert_eq!(cells(&ws)[0]["source"], json!(["b = 3"]));
}
