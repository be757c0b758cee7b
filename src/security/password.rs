//! Passwords of internal users: the plugin's `PasswordValidator` as its demo installer configures
//! it (minimum length 8, the demo regex, zxcvbn score STRONG, not similar to the user name), and
//! bcrypt hashing as the plugin writes hashes (cost 12, `$2y$`).

use zxcvbn::matching::patterns::MatchPattern;

/// The demo installer's minimum length (`DEFAULT_PASSWORD_MIN_LENGTH`).
pub const MIN_LENGTH: usize = 8;
/// The validator's maximum length.
pub const MAX_LENGTH: usize = 100;
/// bcrypt cost (`plugins.security.password.hashing.bcrypt.rounds` default).
pub const BCRYPT_COST: u32 = 12;

/// Why a password was refused: the plugin's `ValidationError`s, with their messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordError {
    TooShort,
    TooLong,
    InvalidRegex,
    Weak,
    Similar,
}

impl PasswordError {
    /// The plugin's message (`RequestContentValidator.ValidationError.message()`).
    pub fn message(self) -> &'static str {
        match self {
            PasswordError::TooShort => "Password is too short",
            PasswordError::TooLong => "Password is too long",
            PasswordError::InvalidRegex => "Password does not match validation regex",
            PasswordError::Weak => "Weak password",
            PasswordError::Similar => "Password is similar to user name",
        }
    }
}

/// Validates `password` for `username` in the plugin's order: length, regex, strength, similarity.
pub fn validate(username: &str, password: &str) -> Result<(), PasswordError> {
    // Java's String.length() counts UTF-16 units.
    let len = password.encode_utf16().count();
    if len < MIN_LENGTH {
        return Err(PasswordError::TooShort);
    }
    if len > MAX_LENGTH {
        return Err(PasswordError::TooLong);
    }
    if !matches_demo_regex(password) {
        return Err(PasswordError::InvalidRegex);
    }
    let entropy = zxcvbn::zxcvbn(password, &[username]);
    if u8::from(entropy.score()) < 3 {
        return Err(PasswordError::Weak);
    }
    let similar = entropy.sequence().iter().any(|m| match &m.pattern {
        // The type of `dictionary_name` is not exported by the crate; its Debug name is stable.
        MatchPattern::Dictionary(p) => format!("{:?}", p.dictionary_name) == "UserInputs",
        _ => false,
    });
    if similar {
        return Err(PasswordError::Similar);
    }
    Ok(())
}

/// The demo installer's regex `(?=.*[A-Z])(?=.*[^a-zA-Z\\d])(?=.*[0-9])(?=.*[a-z]).{8,}` with
/// Java's `matches()` (whole string), checked by hand (the `regex` crate has no lookahead). The
/// Java literal doubles the backslash, so the "special" class is `[^a-zA-Z\\d]`: anything but an
/// ASCII letter or a backslash (a digit counts) — reproduced as the plugin behaves. `.` matches
/// no line terminator.
fn matches_demo_regex(password: &str) -> bool {
    let upper = password.chars().any(|c| c.is_ascii_uppercase());
    let special = password.chars().any(|c| !c.is_ascii_alphabetic() && c != '\\');
    let digit = password.chars().any(|c| c.is_ascii_digit());
    let lower = password.chars().any(|c| c.is_ascii_lowercase());
    let no_terminator = !password.chars().any(|c| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'));
    upper && special && digit && lower && no_terminator && password.chars().count() >= MIN_LENGTH
}

/// bcrypt hash of `password` as the plugin writes it: `$2y$12$...`.
pub fn hash(password: &str) -> Result<String, String> {
    bcrypt::hash_with_result(password, BCRYPT_COST)
        .map(|h| h.format_for_version(bcrypt::Version::TwoY))
        .map_err(|e| format!("Failure while hashing the admin password: {e}"))
}

/// Whether `password` matches a stored bcrypt `hash` (`$2a$`, `$2b$` or `$2y$`); a malformed hash
/// never matches.
pub fn verify(password: &str, hash: &str) -> bool {
    bcrypt::verify(password, hash).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_follows_the_plugin_order() {
        assert_eq!(validate("admin", "Ab1!"), Err(PasswordError::TooShort));
        assert_eq!(validate("admin", &"Ab1!".repeat(26)), Err(PasswordError::TooLong));
        assert_eq!(validate("admin", "alllowercase1!"), Err(PasswordError::InvalidRegex));
        assert_eq!(validate("admin", "ALLUPPERCASE1!"), Err(PasswordError::InvalidRegex));
        assert_eq!(validate("admin", "NoDigitsHere!!"), Err(PasswordError::InvalidRegex));
        assert_eq!(validate("admin", "Pass\nword1!x"), Err(PasswordError::InvalidRegex));
        assert_eq!(validate("admin", "Password1!"), Err(PasswordError::Weak));
        assert_eq!(validate("admin", "Admin123!"), Err(PasswordError::Weak));
        assert_eq!(validate("bubblegumcrayon", "Xq7#vLm2$Rt9bubblegumcrayon"), Err(PasswordError::Similar));
        assert_eq!(validate("admin", "myStrongPassword123!"), Ok(()));
        assert_eq!(validate("admin", "Xq7#vLm2$Rt9"), Ok(()));
    }

    #[test]
    fn a_digit_counts_as_the_special_character_as_in_the_plugin() {
        // `[^a-zA-Z\\d]` in the plugin's effective regex: no symbol needed when a digit is there.
        assert!(matches_demo_regex("Abcdefg1"));
        assert!(!matches_demo_regex("Abcdefgh"));
    }

    #[test]
    fn hashes_are_2y_cost_12_and_verify() {
        let h = hash("myStrongPassword123!").expect("hash");
        assert!(h.starts_with("$2y$12$"), "{h}");
        assert!(verify("myStrongPassword123!", &h));
        assert!(!verify("other", &h));
        assert!(!verify("x", "not a hash"));
        // The plugin's demo `admin` hash is bcrypt("admin") with `$2a$`.
        assert!(verify("admin", "$2a$12$VcCDgh2NDk07JGN0rjGbM.Ad41qVR/YFJcgHp0UGns5JDymv..TOG"));
    }
}
