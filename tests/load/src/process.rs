//! The process under load: started by xo-load (`--spawn-server`) or given by `--server-pid`;
//! its memory and CPU time read from `/proc/<pid>/{status,stat}`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A server (firmware-host or xo-forwarder) started by xo-load on 127.0.0.1 port 0. Stopped
/// with SIGTERM by [`Spawned::stop`], killed on drop if still running.
#[derive(Debug)]
pub struct Spawned {
    child: Child,
    pub pid: u32,
    pub url: String,
    /// Where its standard error goes.
    pub log: PathBuf,
    /// The command line, for the report.
    pub command: String,
}

impl Spawned {
    /// Starts `bin` with `args` plus `--bind 127.0.0.1:0 --port-file FILE`, pinned to `cpu`
    /// with `taskset` when given, logging to `dir/name.log`; waits (30 s at most) for the port.
    pub fn start(
        bin: &Path,
        args: &[String],
        cpu: Option<&str>,
        dir: &Path,
        name: &str,
    ) -> Result<Spawned, String> {
        let port_file = dir.join(format!("{name}.port"));
        let log = dir.join(format!("{name}.log"));
        let _ = std::fs::remove_file(&port_file);
        let mut argv: Vec<String> = Vec::new();
        if let Some(cpu) = cpu {
            argv.extend(["taskset".into(), "-c".into(), cpu.into()]);
        }
        argv.push(bin.display().to_string());
        argv.extend(args.iter().cloned());
        argv.extend([
            "--bind".into(),
            "127.0.0.1:0".into(),
            "--port-file".into(),
            port_file.display().to_string(),
        ]);
        let log_file =
            std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        // argv is never empty: it holds at least the binary.
        let (program, rest) = argv.split_first().ok_or("empty command")?;
        let mut child = Command::new(program)
            .args(rest)
            .env_remove("XO_BIND")
            .env_remove("XO_PORT_FILE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        // taskset execs the program, so the child's pid is the server's.
        let pid = child.id();
        let started = Instant::now();
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|s| s.trim().parse::<u16>().ok())
            {
                break port;
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "{name} exited with {status} before listening; log: {}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                ));
            }
            if started.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{name} did not write its port within 30 s"));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        Ok(Spawned {
            child,
            pid,
            url: format!("http://127.0.0.1:{port}"),
            log,
            command: argv.join(" "),
        })
    }

    /// SIGTERM, then up to 10 s for a clean exit (firmware-host finishes its writes), then
    /// SIGKILL. Answers the process's `write_bytes` at its exit (read while it is a zombie,
    /// before it is reaped): what it wrote in all, its shutdown's writes included.
    pub fn stop(mut self) -> Result<u64, String> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid.to_string()])
            .status();
        let started = Instant::now();
        let pid = self.pid.to_string();
        let mut written = 0;
        while started.elapsed() < Duration::from_secs(10) {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // The state follows the command's closing parenthesis.
            if stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'))
            {
                written = write_bytes(&pid);
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return if status.success() {
                    Ok(written)
                } else {
                    Err(format!("exited with {status}"))
                };
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        Err("did not stop within 10 s of SIGTERM; killed".into())
    }

    /// The last `n` lines of its log.
    pub fn log_tail(&self, n: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One reading of a process's memory and CPU time.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sample {
    /// Resident memory now, kB.
    pub rss_kb: u64,
    /// Peak resident memory since the process started (`VmHWM`), kB.
    pub hwm_kb: u64,
    /// User + system CPU time since the process started, in clock ticks.
    pub cpu_ticks: u64,
    /// Time its threads spent runnable but waiting for a CPU (`/proc/<pid>/schedstat`, summed
    /// over its threads), ns; 0 when the kernel does not keep schedstats.
    pub run_delay_ns: u64,
    /// Bytes the process caused to be written to storage (`write_bytes` of `/proc/<pid>/io`:
    /// page-cache pages it dirtied, counted once until written back), 0 when unreadable.
    pub write_bytes: u64,
}

/// Reads `/proc/<pid>/status` and `/proc/<pid>/stat` (`pid` "self" for this process).
pub fn sample(pid: &str) -> Option<Sample> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3, the state;
    // utime and stime are fields 14 and 15.
    let after = stat.rsplit_once(") ")?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Sample {
        rss_kb: field("VmRSS:")?,
        hwm_kb: field("VmHWM:")?,
        cpu_ticks: utime + stime,
        run_delay_ns: run_delay_ns(pid),
        write_bytes: write_bytes(pid),
    })
}

/// `write_bytes` of `/proc/<pid>/io`; 0 when it cannot be read (another user's process).
fn write_bytes(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()
        .and_then(|io| {
            io.lines()
                .find_map(|l| l.strip_prefix("write_bytes:"))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Counts the system calls that make a file durable (`fsync`, `fdatasync`) of process `pid`
/// and all its threads while it lives: `strace -c -f` attached to it, stopped by [`Syncs::stop`].
/// strace stops the process at every system call while attached, so its CPU figures are not
/// comparable with a run without it.
#[derive(Debug)]
pub struct Syncs {
    child: Child,
    out: PathBuf,
}

impl Syncs {
    pub fn start(pid: u32, dir: &Path) -> Result<Syncs, String> {
        let out = dir.join(format!("strace-{pid}.txt"));
        let child = Command::new("strace")
            .args(["-c", "-f", "-e", "trace=fsync,fdatasync", "-o"])
            .arg(&out)
            .args(["-p", &pid.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("strace: {e}"))?;
        // strace attaches to every thread before it counts; give it that time.
        std::thread::sleep(Duration::from_millis(300));
        Ok(Syncs { child, out })
    }

    /// Detaches strace (SIGINT, as at a terminal) and returns the calls it counted.
    pub fn stop(mut self) -> Result<u64, String> {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        let text = std::fs::read_to_string(&self.out)
            .map_err(|e| format!("{}: {e}", self.out.display()))?;
        Ok(count_syncs(&text))
    }
}

/// The calls of `fsync` and `fdatasync` in strace's `-c` table (`% time  seconds  usecs/call
/// calls  errors  syscall`).
fn count_syncs(table: &str) -> u64 {
    table
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let name = *fields.last()?;
            if name != "fsync" && name != "fdatasync" {
                return None;
            }
            fields.get(3)?.parse::<u64>().ok()
        })
        .sum()
}

/// The second field of each thread's `schedstat`, summed: nanoseconds spent waiting on a run
/// queue. Threads that ended meanwhile drop out of the sum, so compare readings of long-lived
/// processes only.
fn run_delay_ns(pid: &str) -> u64 {
    let Ok(threads) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    threads
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|text| text.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 on Linux when that fails).
pub fn clock_ticks_per_s() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .filter(|t| *t > 0)
        .unwrap_or(100)
}

/// The one-minute load average.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strace_tables_are_read_by_call_name() {
        let table = "% time     seconds  usecs/call     calls    errors syscall\n\
            ------ ----------- ----------- --------- --------- ----------------\n\
            100.00    0.012345         274        45           fdatasync\n\
              0.00    0.000010          10         1           fsync\n\
            ------ ----------- ----------- --------- --------- ----------------\n\
            100.00    0.012355                    46           total\n";
        assert_eq!(count_syncs(table), 46);
        assert_eq!(count_syncs(""), 0);
    }

    #[test]
    fn this_process_can_be_sampled() {
        let s = sample("self").expect("/proc/self readable");
        assert!(s.rss_kb > 0 && s.hwm_kb >= s.rss_kb, "{s:?}");
        assert!(clock_ticks_per_s() > 0);
        assert!(load_average().is_some());
    }
}
