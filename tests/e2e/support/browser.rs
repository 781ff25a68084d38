//! A real headless Chromium for a test (Debian's `chromium`, which `.ci/run` installs), driven
//! over the DevTools protocol: a WebSocket of JSON commands, answered by id. One page per
//! browser; the browser is killed when dropped.

use super::TempDir;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

/// How long one protocol command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

pub struct Browser {
    child: Child,
    socket: WebSocket<TcpStream>,
    session: String,
    next_id: u64,
}

impl Browser {
    /// A new browser with a blank page (its profile in `dir/chromium`); `None` (after
    /// [`super::skip`]) where Chromium is not installed.
    pub fn start(test: &str, dir: &TempDir) -> Option<Browser> {
        let Some(program) = chromium() else {
            super::skip(test, "Chromium (Debian's chromium) is not installed");
            return None;
        };
        let mut cmd = Command::new(program);
        cmd.args([
            "--headless",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--remote-debugging-port=0",
            "--window-size=1400,900",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.join("chromium").display()
        ))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
        if super::is_root() {
            // Chromium's own sandbox refuses to run as root.
            cmd.arg("--no-sandbox");
        }
        // A process group of its own, so that the browser's helper processes end with it.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("chromium starts");
        let url = devtools_url(&mut child);
        let address = url
            .strip_prefix("ws://")
            .and_then(|r| r.split('/').next())
            .expect("a ws:// address")
            .to_string();
        let stream = TcpStream::connect(&address).expect("the DevTools port");
        stream.set_read_timeout(Some(COMMAND_TIMEOUT)).unwrap();
        let (socket, _) = tungstenite::client(url.as_str(), stream).expect("a DevTools socket");
        let mut browser = Browser {
            child,
            socket,
            session: String::new(),
            next_id: 0,
        };
        let target = browser.call("Target.createTarget", json!({"url": "about:blank"}));
        let attached = browser.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        );
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        browser.page("Page.enable", json!({}));
        browser.page("Runtime.enable", json!({}));
        Some(browser)
    }

    /// A command to the browser (no session) or, with `session`, to the page; its result.
    fn send(&mut self, method: &str, params: Value, session: Option<String>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = Value::String(s);
        }
        self.socket
            .send(Message::text(message.to_string()))
            .expect("a DevTools command is sent");
        let started = Instant::now();
        loop {
            assert!(started.elapsed() < COMMAND_TIMEOUT, "{method}: no answer");
            let reply = match self.socket.read() {
                Ok(Message::Text(t)) => t,
                Ok(_) => continue,
                // A read with a timeout returns EINTR when the test process is stopped and
                // continued, or takes a signal, whatever SA_RESTART says; the socket is intact.
                Err(tungstenite::Error::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
                    continue
                }
                Err(e) => panic!("{method}: a DevTools message: {e:?}"),
            };
            let reply: Value = serde_json::from_str(reply.as_str()).unwrap();
            if reply["id"] == id {
                assert!(reply["error"].is_null(), "{method}: {}", reply["error"]);
                return reply["result"].clone();
            }
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None)
    }

    /// A command to the page.
    pub fn page(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(method, params, Some(session))
    }

    /// Open `url` in the page and wait until the document has loaded.
    pub fn goto(&mut self, url: &str) {
        // The page being left is marked, so that the wait below is for the new document: the
        // old one is complete too until the navigation commits, which under load comes late.
        self.eval("window.__left_behind = true");
        self.page("Page.navigate", json!({"url": url}));
        self.wait_for(
            "!window.__left_behind && document.readyState === 'complete'",
            Duration::from_secs(30),
        );
    }

    /// The value of the JavaScript `expression` in the page (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.page(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result["exceptionDetails"].is_null(),
            "{expression}: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// Wait (at most `timeout`) until `expression` is truthy in the page; its value.
    pub fn wait_for(&mut self, expression: &str, timeout: Duration) -> Value {
        let started = Instant::now();
        loop {
            let value = self.eval(&format!(
                "(() => {{ try {{ return {expression}; }} catch (e) {{ return null; }} }})()"
            ));
            let truthy = match &value {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return value;
            }
            assert!(
                started.elapsed() < timeout,
                "`{expression}` not true after {timeout:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A key pressed and released in the page (`key` as the DOM names it: `ArrowRight`, `End`).
    pub fn key(&mut self, key: &str) {
        let code = match key {
            "End" => 35,
            "Home" => 36,
            "ArrowLeft" => 37,
            "ArrowRight" => 39,
            _ => 0,
        };
        for kind in ["rawKeyDown", "keyUp"] {
            self.page(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code}),
            );
        }
    }

    /// Lay the page out in a window of `width` × `height` pixels.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.page(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        );
    }

    /// A PNG of the whole page laid out `width` pixels wide, written to `path`.
    pub fn screenshot(&mut self, width: u32, path: &Path) {
        self.resize(width, 900);
        let height = self
            .eval("Math.ceil(document.documentElement.scrollHeight)")
            .as_u64()
            .unwrap_or(900)
            .clamp(300, 6000) as u32;
        self.resize(width, height);
        let shot = self.page("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64_decode(shot["data"].as_str().expect("PNG data"));
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    /// The browser and every process of its group (its renderers, its zygote) end with the
    /// test, whether it passed or panicked.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The browser's DevTools address, from the line Chromium prints on stderr; the rest of its
/// stderr is drained so that it never blocks on a full pipe.
fn devtools_url(child: &mut Child) -> String {
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("chromium printed its DevTools address")
            .unwrap();
        if let Some(url) = line.strip_prefix("DevTools listening on ") {
            break url.trim().to_string();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    url
}

/// Chromium's program: on the `PATH` as Debian (`chromium`) or others name it.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Standard base64 (the protocol's encoding of binary data) decoded.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    digits
        .chunks(4)
        .flat_map(|c| {
            let n = c
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &d)| acc | u32::from(d) << (18 - 6 * i));
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            bytes.into_iter().take(c.len().saturating_sub(1))
        })
        .collect()
}

/// A GET of `url` (`http://HOST:PORT/PATH`) with extra `headers`: the status and the body (of
/// a response that ends; an event stream is cut after what `limit` bytes hold).
pub fn http_get(url: &str, headers: &[(&str, &str)], limit: usize) -> (u16, String, String) {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(host).expect("the server");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!(
        "GET {} HTTP/1.1\r\nConnection: close\r\n",
        if path.is_empty() { "/" } else { path }
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {host}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    while bytes.len() < limit {
        match stream.read(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Ok(0) | Err(_) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&bytes).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}
