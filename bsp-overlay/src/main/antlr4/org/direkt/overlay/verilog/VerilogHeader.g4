// SPDX-License-Identifier: Apache-2.0
/*
 * VerilogHeader: the module headers of Verilog-2001 source, and nothing more.
 *
 * A module is parsed up to the semicolon that ends its header (name, #(...) parameter port list,
 * ANSI or non-ANSI port list). Its body is read as a flat token stream up to 'endmodule'; only the
 * items that contribute to the interface are parsed in it: non-ANSI port declarations
 * (input/output/inout ... ;) and parameter/localparam declarations. Functions, tasks and generate
 * regions are skipped as blocks so that their own 'input' and 'localparam' items are not taken for
 * the module's. Comments, attributes (* ... *) and compiler directives live on the hidden channel;
 * `define lines are kept there too so that the front end can evaluate `MACRO references in ranges.
 *
 * Entry rules: sourceText (a whole file), expressionOnly and rangeOnly (re-evaluating a stored
 * parameter expression or port range, and the body of a `define).
 */
grammar VerilogHeader;

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

sourceText
    : topItem* EOF
    ;

topItem
    : moduleDecl
    | primitiveDecl
    ;

/** A user-defined primitive: skipped whole. */
primitiveDecl
    : PRIMITIVE (~(ENDPRIMITIVE | MODULE | ENDMODULE))* ENDPRIMITIVE
    ;

moduleDecl
    : MODULE identifier parameterPortList? portList? SEMI moduleBody
    ;

moduleBody
    : moduleItem* ENDMODULE
    ;

/** #( parameter W = 8, parameter integer D = 16 ), or the keyword-less #( W = 8, D = 16 ). */
parameterPortList
    : HASH LPAREN (parameterPortDecl (COMMA parameterPortDecl)*)? RPAREN
    ;

parameterPortDecl
    : (PARAMETER | LOCALPARAM)? paramType? paramAssignment
    ;

paramType
    : INTEGER
    | REAL
    | TIME
    | SIGNED range?
    | range
    ;

paramAssignment
    : identifier ASSIGN expression
    ;

/** Either all ANSI declarations (a bare name continues the previous one) or all bare names. */
portList
    : LPAREN (portItem (COMMA portItem)*)? RPAREN
    ;

portItem
    : ansiPortDecl
    | identifier
    ;

ansiPortDecl
    : portHead identifier
    ;

/** Direction, optional net/variable kind, optional signed, optional range. */
portHead
    : direction dataKind? SIGNED? range?
    ;

direction
    : INPUT
    | OUTPUT
    | INOUT
    ;

dataKind
    : NET_TYPE
    | INTEGER
    | TIME
    ;

range
    : LBRACK msb=expression COLON lsb=expression RBRACK
    ;

moduleItem
    : portDeclaration
    | parameterDeclaration
    | skippedBlock
    | otherToken
    ;

/** Non-ANSI body port declaration: input [3:0] a, b; */
portDeclaration
    : portHead identifier (COMMA identifier)* SEMI
    ;

parameterDeclaration
    : (PARAMETER | LOCALPARAM) paramType? paramAssignment (COMMA paramAssignment)* SEMI
    ;

skippedBlock
    : FUNCTION (~(ENDFUNCTION | MODULE | ENDMODULE))* ENDFUNCTION
    | TASK (~(ENDTASK | MODULE | ENDMODULE))* ENDTASK
    | GENERATE (~(ENDGENERATE | MODULE | ENDMODULE))* ENDGENERATE
    ;

/** Any body token that starts none of the items above. */
otherToken
    : ~(MODULE | ENDMODULE | PRIMITIVE | ENDPRIMITIVE | INPUT | OUTPUT | INOUT | PARAMETER
      | LOCALPARAM | FUNCTION | ENDFUNCTION | TASK | ENDTASK | GENERATE | ENDGENERATE)
    ;

/** Constant expressions, Verilog precedence from tightest to loosest. */
expression
    : primary                                                          # primaryExpr
    | op=(PLUS | MINUS | BANG | TILDE) expression                      # unaryExpr
    | <assoc=right> expression op=POW expression                       # binaryExpr
    | expression op=(STAR | SLASH | PERCENT) expression                # binaryExpr
    | expression op=(PLUS | MINUS) expression                          # binaryExpr
    | expression op=(SHL | SHR | ASHL | ASHR) expression               # binaryExpr
    | expression op=(LT | LE | GT | GE) expression                     # binaryExpr
    | expression op=(EQ | NE | CEQ | CNE) expression                   # binaryExpr
    | expression op=AMP expression                                     # binaryExpr
    | expression op=CARET expression                                   # binaryExpr
    | expression op=PIPE expression                                    # binaryExpr
    | expression op=ANDAND expression                                  # binaryExpr
    | expression op=OROR expression                                    # binaryExpr
    | <assoc=right> expression QUESTION expression COLON expression    # conditionalExpr
    ;

primary
    : number                                                           # numberPrimary
    | identifier                                                       # identifierPrimary
    | MACRO_REF                                                        # macroPrimary
    | SYSTEM_ID LPAREN (expression (COMMA expression)*)? RPAREN        # systemCallPrimary
    | LPAREN expression RPAREN                                         # parenPrimary
    | STRING                                                           # stringPrimary
    | REAL_NUMBER                                                      # realPrimary
    ;

/** 32, 8'hFF, 'd3, 8'sh7f, 12 'h 3ff */
number
    : size=DECIMAL? BASED_VALUE
    | DECIMAL
    ;

identifier
    : ID
    | ESCAPED_ID
    ;

expressionOnly
    : expression EOF
    ;

rangeOnly
    : range EOF
    ;

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

MODULE       : 'module' | 'macromodule' ;
ENDMODULE    : 'endmodule' ;
PRIMITIVE    : 'primitive' ;
ENDPRIMITIVE : 'endprimitive' ;
INPUT        : 'input' ;
OUTPUT       : 'output' ;
INOUT        : 'inout' ;
PARAMETER    : 'parameter' ;
LOCALPARAM   : 'localparam' ;
FUNCTION     : 'function' ;
ENDFUNCTION  : 'endfunction' ;
TASK         : 'task' ;
ENDTASK      : 'endtask' ;
GENERATE     : 'generate' ;
ENDGENERATE  : 'endgenerate' ;
SIGNED       : 'signed' ;
INTEGER      : 'integer' ;
REAL         : 'real' | 'realtime' ;
TIME         : 'time' ;
NET_TYPE
    : 'wire' | 'reg' | 'tri' | 'tri0' | 'tri1' | 'triand' | 'trior' | 'trireg' | 'wand' | 'wor'
    | 'supply0' | 'supply1' | 'uwire' | 'logic'
    ;

LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
/** Also matches an unterminated comment (up to EOF); the front end rejects those. */
BLOCK_COMMENT : '/*' .*? ('*/' | EOF) -> channel(HIDDEN) ;
/** (* attr = value *); '(*' must be followed by a name so that @(*) stays three tokens. */
ATTRIBUTE     : '(*' [ \t\r\n]* [a-zA-Z_\\] .*? '*)' -> channel(HIDDEN) ;

/** `define NAME body, with backslash-newline continuations. */
DEFINE
    : '`define' (~[\r\n\\] | '\\' '\r'? '\n' | '\\')* -> channel(HIDDEN)
    ;
/** Directives that take the rest of the line. */
LINE_DIRECTIVE
    : '`' ('timescale' | 'default_nettype' | 'include' | 'line' | 'pragma' | 'unconnected_drive'
          | 'default_decay_time' | 'default_trireg_strength' | 'delay_mode_distributed'
          | 'delay_mode_path' | 'delay_mode_unit' | 'delay_mode_zero') ~[\r\n]* -> channel(HIDDEN)
    ;
/** Conditional compilation is not evaluated: every branch is read. */
NAME_DIRECTIVE
    : '`' ('ifdef' | 'ifndef' | 'elsif' | 'undef') [ \t]+ [a-zA-Z_] [a-zA-Z0-9_$]* -> channel(HIDDEN)
    ;
BARE_DIRECTIVE
    : '`' ('else' | 'endif' | 'resetall' | 'celldefine' | 'endcelldefine' | 'nounconnected_drive')
      -> channel(HIDDEN)
    ;
MACRO_REF : '`' [a-zA-Z_] [a-zA-Z0-9_$]* ;

STRING              : '"' (~["\\\r\n] | '\\' .)* '"' ;
/** A string that meets a newline or EOF first; the front end rejects it. */
UNTERMINATED_STRING : '"' (~["\\\r\n] | '\\' .)* ;

REAL_NUMBER
    : [0-9] [0-9_]* '.' [0-9] [0-9_]* ([eE] [+-]? [0-9] [0-9_]*)?
    | [0-9] [0-9_]* [eE] [+-]? [0-9] [0-9_]*
    ;
DECIMAL     : [0-9] [0-9_]* ;
BASED_VALUE : '\'' [sS]? [bBoOdDhH] [ \t]* [0-9a-fA-FxXzZ?] [0-9a-fA-FxXzZ?_]* ;

SYSTEM_ID  : '$' [a-zA-Z0-9_$]+ ;
ID         : [a-zA-Z_] [a-zA-Z0-9_$]* ;
ESCAPED_ID : '\\' ~[ \t\r\n]+ ;

LPAREN     : '(' ;
RPAREN     : ')' ;
LBRACK     : '[' ;
RBRACK     : ']' ;
HASH       : '#' ;
COMMA      : ',' ;
SEMI       : ';' ;
COLON      : ':' ;
QUESTION   : '?' ;
CEQ        : '===' ;
CNE        : '!==' ;
EQ         : '==' ;
NE         : '!=' ;
LE         : '<=' ;
GE         : '>=' ;
ASHL       : '<<<' ;
ASHR       : '>>>' ;
SHL        : '<<' ;
SHR        : '>>' ;
LT         : '<' ;
GT         : '>' ;
ANDAND     : '&&' ;
OROR       : '||' ;
POW        : '**' ;
ASSIGN     : '=' ;
PLUS       : '+' ;
MINUS      : '-' ;
STAR       : '*' ;
SLASH      : '/' ;
PERCENT    : '%' ;
BANG       : '!' ;
TILDE      : '~' ;
AMP        : '&' ;
PIPE       : '|' ;
CARET      : '^' ;

WS : [ \t\r\n\f]+ -> skip ;

/** Anything else (@, {, }, ., ', ...): only ever part of a skipped module body. */
OTHER : . ;
