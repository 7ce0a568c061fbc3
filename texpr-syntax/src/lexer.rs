//! The logos lexer: source text to tokens with byte spans.
