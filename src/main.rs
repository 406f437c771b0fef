mod cli;

// Projection allocates many small maps and strings; mimalloc cuts its run time markedly
// (measured in the closing note of the foundation issue).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The allocator's option setter, linked in with it (the `mimalloc` crate declares it only under
// a feature that pulls another dependency, and without this option's constant).
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    #[cfg(test)]
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
}

/// `mi_option_purge_delay` in the enum `mi_option_e` of the vendored mimalloc v3 `mimalloc.h`.
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// Pages a projection frees go back to the system at once instead of a second later: `project`
/// frees each tool's input and projection as it writes, and mimalloc's default delay kept
/// them all resident (webhooks flat: 91 MB → 69–73 MB peak, user time unchanged; see
/// the issue-13 memory note).
fn return_freed_pages_at_once() {
    // SAFETY: sets a plain integer option; any value is valid for this one.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
}

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    return_freed_pages_at_once();
    // Readable reports for unexpected failures; user errors are reported by `cli` itself.
    let _ = color_eyre::install();
    cli::run(cli::Cli::parse())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the option's number against a mimalloc upgrade: option 15 must be the purge
    /// delay, whose default in the vendored version is 1000 ms (no other option has it).
    #[test]
    fn option_15_is_the_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads a plain integer option.
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 1000);
        return_freed_pages_at_once();
        // SAFETY: as above.
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 0);
    }
}
