//! Sets `cfg(debug_profile)` in builds of the dev/test profiles (Cargo's `PROFILE` is
//! "debug" there, "release" for release and the profiles inheriting it). rustdoc gets
//! the cfg too, so the doctests of docs/extending.md (`ExtendingDocs` in lib.rs) run in
//! debug builds only; `debug_assertions` cannot tell, as rustdoc compiles doctests
//! unoptimised whatever the profile.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(debug_profile)");
    if std::env::var("PROFILE").as_deref() == Ok("debug") {
        println!("cargo::rustc-cfg=debug_profile");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
