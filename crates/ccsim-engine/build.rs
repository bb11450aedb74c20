//! Sets `cfg(debug_profile)` in unoptimised builds (the dev/test profiles: Cargo's
//! `PROFILE` is "debug" there, "release" for release and the profiles inheriting it).
//! Tests that size their runs to the build read it: `debug_assertions` cannot tell, as
//! the optimised `test-release` profile (Cargo.toml) keeps debug assertions on.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(debug_profile)");
    if std::env::var("PROFILE").as_deref() == Ok("debug") {
        println!("cargo::rustc-cfg=debug_profile");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
