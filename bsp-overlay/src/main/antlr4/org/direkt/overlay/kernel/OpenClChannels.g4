// SPDX-License-Identifier: Apache-2.0
/*
 * OpenClChannels: the channel declarations and channel calls of an Intel FPGA OpenCL C file,
 * picked out of an otherwise unparsed token stream.
 *
 * The lexer knows enough C to never fail: comments, string and character literals (so that
 * parentheses or the word 'channel' inside them are not seen), preprocessor lines (with
 * backslash continuations), identifiers, numbers and punctuation; any other character is a token
 * of its own. The parser reads the file as a sequence of items, each a channel declaration, a
 * channel call, or any other single token. Only the two patterns are parsed strictly.
 *
 * Macros are not expanded: a channel call written inside a #define is not seen.
 */
grammar OpenClChannels;

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

translationUnit
    : item* EOF
    ;

item
    : channelDecl
    | channelCall
    | otherToken
    ;

/** channel T name [N]... __attribute__((depth(N), io("ID"))) , name2 ... ; */
channelDecl
    : CHANNEL channelType declarator (COMMA declarator)* SEMI
    ;

/**
 * uint, ulong4, cldesc_t, unsigned int, struct x, union x, enum x. One name (after an optional
 * signed/unsigned), so that the name of the channel is never taken for part of its type.
 */
channelType
    : tag=(STRUCT | UNION | ENUM) ID                                  # taggedType
    | sign=(SIGNED | UNSIGNED)? ID                                    # namedType
    ;

/** Attributes may stand before or after the name. */
declarator
    : attribute* ID arraySuffix* attribute*
    ;

arraySuffix
    : LBRACK balanced RBRACK
    ;

/** __attribute__(( depth(8), io("kernel_in") )) */
attribute
    : ATTRIBUTE LPAREN LPAREN (attributeItem (COMMA attributeItem)*)? RPAREN RPAREN
    ;

attributeItem
    : ID (LPAREN balanced RPAREN)?
    ;

channelCall
    : fn=(READ_CHANNEL | READ_CHANNEL_NB) LPAREN channelRef (COMMA balanced)? RPAREN   # readCall
    | fn=(WRITE_CHANNEL | WRITE_CHANNEL_NB) LPAREN channelRef COMMA balanced RPAREN   # writeCall
    ;

/** A channel, or an element of a channel array: chans[i]. */
channelRef
    : ID arraySuffix*
    ;

/** Any token sequence with balanced (), [] and {}. */
balanced
    : ( LPAREN balanced RPAREN
      | LBRACK balanced RBRACK
      | LBRACE balanced RBRACE
      | ~(LPAREN | RPAREN | LBRACK | RBRACK | LBRACE | RBRACE)
      )*
    ;

/** Any token that starts neither a declaration nor a call. */
otherToken
    : ~(CHANNEL | READ_CHANNEL | READ_CHANNEL_NB | WRITE_CHANNEL | WRITE_CHANNEL_NB)
    ;

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

CHANNEL          : 'channel' ;
ATTRIBUTE        : '__attribute__' ;
STRUCT           : 'struct' ;
UNION            : 'union' ;
ENUM             : 'enum' ;
SIGNED           : 'signed' ;
UNSIGNED         : 'unsigned' ;
READ_CHANNEL     : 'read_channel_intel' | 'read_channel_altera' ;
READ_CHANNEL_NB  : 'read_channel_nb_intel' | 'read_channel_nb_altera' ;
WRITE_CHANNEL    : 'write_channel_intel' | 'write_channel_altera' ;
WRITE_CHANNEL_NB : 'write_channel_nb_intel' | 'write_channel_nb_altera' ;

/** Also matches an unterminated comment (up to EOF); the front end rejects those. */
BLOCK_COMMENT : '/*' .*? ('*/' | EOF) -> channel(HIDDEN) ;
LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;

/** #include, #define, #pragma ...: the whole line, continuations included. */
PREPROCESSOR
    : '#' [ \t]* [a-zA-Z_]* (~[\r\n\\] | '\\' '\r'? '\n' | '\\')* -> channel(HIDDEN)
    ;

STRING              : '"' (~["\\\r\n] | '\\' .)* '"' ;
/** A string that meets a newline or EOF first; the front end rejects it. */
UNTERMINATED_STRING : '"' (~["\\\r\n] | '\\' .)* ;
CHAR                : '\'' (~['\\\r\n] | '\\' .)* '\'' ;
/** A character literal that meets a newline or EOF first; the front end rejects it. */
UNTERMINATED_CHAR   : '\'' (~['\\\r\n] | '\\' .)* ;

ID     : [a-zA-Z_] [a-zA-Z0-9_]* ;
NUMBER : '.'? [0-9] ([0-9a-zA-Z_.] | [eEpP] [+-])* ;

LPAREN : '(' ;
RPAREN : ')' ;
LBRACK : '[' ;
RBRACK : ']' ;
LBRACE : '{' ;
RBRACE : '}' ;
COMMA  : ',' ;
SEMI   : ';' ;

WS : [ \t\r\n\f]+ -> skip ;

/** Operators and any other character. */
OTHER : . ;
