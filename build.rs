//! Link settings for the `schemalens` binary.

fn main() {
    // The binary's relative relocations packed (DT_RELR, glibc ≥ 2.36, GNU ld ≥ 2.38; older
    // linkers ignore the option with a warning): the 0.8 MB `.rela.dyn` table the loader reads
    // at every start shrinks to 10 KB, and `project` on a one-line schema peaks at
    // 8.6–9.0 MB resident instead of 10.5–10.9 MB (see the issue-13 rest note).
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os == "linux" && target_env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
