//! The scene files of the repository's scenes/ folder, compiled into the binary so that
//! `stiction run pendulum` and `stiction demo` work from any directory.

/// `(name, file name, TOML text)` of every built-in scene.
pub const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "s1-pyramid-20",
        "s1-pyramid-20.toml",
        include_str!("../../../../scenes/s1-pyramid-20.toml"),
    ),
    (
        "s2-sphere-pile",
        "s2-sphere-pile.toml",
        include_str!("../../../../scenes/s2-sphere-pile.toml"),
    ),
    (
        "s3-chain-100",
        "s3-chain-100.toml",
        include_str!("../../../../scenes/s3-chain-100.toml"),
    ),
    (
        "s4-stack-20",
        "s4-stack-20.toml",
        include_str!("../../../../scenes/s4-stack-20.toml"),
    ),
    (
        "s5-spinner",
        "s5-spinner.toml",
        include_str!("../../../../scenes/s5-spinner.toml"),
    ),
    (
        "newtons-cradle",
        "newtons-cradle.toml",
        include_str!("../../../../scenes/newtons-cradle.toml"),
    ),
    (
        "tennis-racket",
        "tennis-racket.toml",
        include_str!("../../../../scenes/tennis-racket.toml"),
    ),
    (
        "pendulum",
        "pendulum.toml",
        include_str!("../../../../scenes/pendulum.toml"),
    ),
    (
        "incline",
        "incline.toml",
        include_str!("../../../../scenes/incline.toml"),
    ),
    (
        "hinge2-car",
        "hinge2-car.toml",
        include_str!("../../../../scenes/hinge2-car.toml"),
    ),
    (
        "ragdoll",
        "ragdoll.toml",
        include_str!("../../../../scenes/ragdoll.toml"),
    ),
];

/// The built-in scene called `name` (with or without `.toml`): its file name and text.
pub fn find(name: &str) -> Option<(&'static str, &'static str)> {
    let name = name.strip_suffix(".toml").unwrap_or(name);
    BUILTIN
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, file, text)| (*file, *text))
}

/// The names of the built-in scenes, in the order above.
pub fn names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(name, _, _)| *name).collect()
}
