# SPDX-License-Identifier: Apache-2.0
# A recording stand-in for the Platform Designer Tcl commands direkt's templates use, so that a
# rendered _hw.tcl or qsys-script runs under a plain tclsh.
#
#   tclsh qsys_stub.tcl LOG SCRIPT [FIXTURE]
#
# Every call is written to LOG as one line: the command and its arguments separated by tabs, with
# backslash, tab and newline escaped as \\, \t and \n. A command the stand-in does not know, or a call
# Platform Designer would refuse (wrong argument count, unknown property, interface not declared,
# connection between endpoints that do not exist, ...) stops the run with exit status 2 and a line
# "qsys-stub: ..." on stderr. FIXTURE (optional) is sourced in namespace ::stub before SCRIPT and may
# fill the system that load_system "loads":
#   set instances(<name>) {<interface> ...}     instances and their interfaces
#   set components(<type>) {<interface> ...}    component types add_instance may add
#   lappend connections <start>/<end>           connections already made
#   lappend exports <name>                      interfaces the system already exports
#   set loaded 1                                the system is open already (qsys-script --system-file)
#   set reshape(<inst>/<param>=<value>) {<interface> ...}
#                                               the interfaces a Pro instance has once save_component
#                                               stores that parameter value (its IP's elaboration)

namespace eval ::stub {
    variable log
    variable loaded 0
    variable instances
    array set instances {}
    variable components
    array set components {}
    variable connections {}
    variable exports {}
    variable interfaces
    array set interfaces {}
    variable reshape
    array set reshape {}
    variable pending {}
    variable ports
    array set ports {}
    variable filesets {}
    variable saved {}

    variable moduleProperties {NAME VERSION DISPLAY_NAME DESCRIPTION GROUP AUTHOR INSTANTIATE_IN_SYSTEM_MODULE
        EDITABLE REPORT_TO_TALKBACK ALLOW_GREYBOX_GENERATION REPORT_HIERARCHY INTERNAL OPAQUE_ADDRESS_MAP
        ELABORATION_CALLBACK VALIDATION_CALLBACK ICON_PATH DATASHEET_URL HIDE_FROM_QSYS HIDE_FROM_QUARTUS}
    variable filesetKinds {QUARTUS_SYNTH SIM_VERILOG SIM_VHDL EXAMPLE_DESIGN}
    variable filesetProperties {TOP_LEVEL ENABLE_RELATIVE_INCLUDE_PATHS ENABLE_FILE_OVERWRITE_MODE}
    variable fileKinds {VERILOG SYSTEM_VERILOG VHDL VERILOG_INCLUDE SDC HEX OTHER}
    variable fileAttributes {TOP_LEVEL_FILE}
    variable interfaceTypes {clock reset avalon avalon_streaming conduit interrupt}
    variable interfaceDirections {end start sink source slave master receiver sender}
    variable interfaceProperties {ENABLED EXPORT_OF PORT_NAME_MAP CMSIS_SVD_VARIABLES SVD_ADDRESS_GROUP
        associatedClock associatedReset clockRate externallyDriven synchronousEdges
        addressUnits addressAlignment readLatency readWaitTime writeWaitTime setupTime holdTime timingUnits
        maximumPendingReadTransactions maximumPendingWriteTransactions burstOnBurstBoundariesOnly burstcountUnits alwaysBurstMaxBurst
        linewrapBursts constantBurstBehavior bridgesToMaster explicitAddressSpan isMemoryDevice
        isNonVolatileStorage printableDevice readWaitStates writeWaitStates
        dataBitsPerSymbol readyLatency maxChannel errorDescriptor firstSymbolInHighOrderBits
        symbolsPerBeat beatsPerCycle emptyWithinPacket highOrderSymbolAtMSB packetDescription}
    variable portDirections {Input Output Bidir}
    variable portProperties {TERMINATION TERMINATION_VALUE VHDL_TYPE DRIVEN_BY FRAGMENT_LIST}
    variable messageLevels {info warning error debug component_info progress}
}

proc ::stub::fail {msg} {
    variable log
    catch {flush $log}
    puts stderr "qsys-stub: $msg"
    exit 2
}

proc ::stub::record {cmd args} {
    variable log
    set fields [list $cmd]
    foreach a $args {
        lappend fields [string map [list "\\" "\\\\" "\t" "\\t" "\n" "\\n"] $a]
    }
    puts $log [join $fields "\t"]
}

proc ::stub::arity {cmd args min max} {
    set n [llength $args]
    if {$n < $min || $n > $max} {
        if {$min == $max} {
            fail "$cmd takes $min argument(s), got $n: $args"
        }
        fail "$cmd takes $min..$max arguments, got $n: $args"
    }
}

proc ::stub::oneOf {cmd what value allowed} {
    if {[lsearch -exact $allowed $value] < 0} {
        fail "$cmd: $what '$value' is not one of: $allowed"
    }
}

proc ::stub::needSystem {cmd} {
    variable loaded
    if {!$loaded} {
        fail "$cmd needs a system: call load_system first"
    }
}

# "instance.interface" of the loaded system.
proc ::stub::endpoint {cmd ep} {
    variable instances
    set parts [split $ep .]
    if {[llength $parts] != 2} {
        fail "$cmd: '$ep' is not instance.interface"
    }
    lassign $parts inst iface
    if {![info exists instances($inst)]} {
        fail "$cmd: no instance '$inst' in the system (endpoint $ep)"
    }
    if {[lsearch -exact $instances($inst) $iface] < 0} {
        fail "$cmd: instance '$inst' has no interface '$iface' (it has: $instances($inst))"
    }
}

# --- package require qsys ---------------------------------------------------------------------------

rename ::package ::stub::tcl_package
proc ::package {args} {
    if {[lindex $args 0] eq "require" && [lsearch -exact $args qsys] >= 0} {
        ::stub::record package {*}$args
        if {$args ne [list require -exact qsys [lindex $args end]] || ![regexp {^[0-9]+\.[0-9]+$} [lindex $args end]]} {
            ::stub::fail "package: expected 'package require -exact qsys <major.minor>', got 'package $args'"
        }
        return [lindex $args end]
    }
    return [uplevel 1 [list ::stub::tcl_package {*}$args]]
}

proc ::unknown {args} {
    ::stub::fail "unknown command: [lindex $args 0] (called as: $args)"
}

# --- component (_hw.tcl) commands -------------------------------------------------------------------

proc set_module_property {args} {
    ::stub::record set_module_property {*}$args
    ::stub::arity set_module_property $args 2 2
    ::stub::oneOf set_module_property property [lindex $args 0] $::stub::moduleProperties
}

proc add_fileset {args} {
    ::stub::record add_fileset {*}$args
    ::stub::arity add_fileset $args 2 4
    lassign $args name kind
    ::stub::oneOf add_fileset kind $kind $::stub::filesetKinds
    if {[lsearch -exact $::stub::filesets $name] >= 0} {
        ::stub::fail "add_fileset: fileset $name declared twice"
    }
    lappend ::stub::filesets $name
}

proc set_fileset_property {args} {
    ::stub::record set_fileset_property {*}$args
    ::stub::arity set_fileset_property $args 3 3
    lassign $args fs prop
    if {[lsearch -exact $::stub::filesets $fs] < 0} {
        ::stub::fail "set_fileset_property: no fileset $fs"
    }
    ::stub::oneOf set_fileset_property property $prop $::stub::filesetProperties
}

proc add_fileset_file {args} {
    ::stub::record add_fileset_file {*}$args
    ::stub::arity add_fileset_file $args 4 8
    if {[llength $::stub::filesets] == 0} {
        ::stub::fail "add_fileset_file: no fileset declared yet"
    }
    lassign $args out kind source path
    ::stub::oneOf add_fileset_file kind $kind $::stub::fileKinds
    ::stub::oneOf add_fileset_file source $source {PATH TEXT}
    foreach attr [lrange $args 4 end] {
        ::stub::oneOf add_fileset_file attribute $attr $::stub::fileAttributes
    }
}

proc add_interface {args} {
    ::stub::record add_interface {*}$args
    ::stub::arity add_interface $args 3 4
    lassign $args name type dir
    ::stub::oneOf add_interface type $type $::stub::interfaceTypes
    ::stub::oneOf add_interface direction $dir $::stub::interfaceDirections
    if {[info exists ::stub::interfaces($name)]} {
        ::stub::fail "add_interface: interface $name declared twice"
    }
    if {$::stub::loaded && [lsearch -exact $::stub::exports $name] >= 0} {
        ::stub::fail "add_interface: the system already has an interface $name"
    }
    set ::stub::interfaces($name) $type
    if {$::stub::loaded} {
        lappend ::stub::exports $name
    }
}

proc set_interface_property {args} {
    ::stub::record set_interface_property {*}$args
    ::stub::arity set_interface_property $args 3 3
    lassign $args name prop value
    if {![info exists ::stub::interfaces($name)]} {
        ::stub::fail "set_interface_property: no interface $name"
    }
    ::stub::oneOf set_interface_property property $prop $::stub::interfaceProperties
    if {$prop eq "EXPORT_OF"} {
        ::stub::needSystem set_interface_property
        ::stub::endpoint "set_interface_property $name EXPORT_OF" $value
    }
}

proc add_interface_port {args} {
    ::stub::record add_interface_port {*}$args
    ::stub::arity add_interface_port $args 5 5
    lassign $args iface port role dir width
    if {![info exists ::stub::interfaces($iface)]} {
        ::stub::fail "add_interface_port: no interface $iface"
    }
    if {[info exists ::stub::ports($port)]} {
        ::stub::fail "add_interface_port: port $port already belongs to interface $::stub::ports($port)"
    }
    ::stub::oneOf add_interface_port direction $dir $::stub::portDirections
    if {![string is integer -strict $width] || $width < 1} {
        ::stub::fail "add_interface_port: width '$width' of $port is not a positive integer"
    }
    set ::stub::ports($port) $iface
}

proc set_port_property {args} {
    ::stub::record set_port_property {*}$args
    ::stub::arity set_port_property $args 3 3
    lassign $args port prop
    if {![info exists ::stub::ports($port)]} {
        ::stub::fail "set_port_property: no port $port (add_interface_port first)"
    }
    ::stub::oneOf set_port_property property $prop $::stub::portProperties
}

proc send_message {args} {
    ::stub::record send_message {*}$args
    ::stub::arity send_message $args 2 2
    ::stub::oneOf send_message level [lindex $args 0] $::stub::messageLevels
    puts "[string toupper [lindex $args 0]]: [lindex $args 1]"
}

# --- system (qsys-script) commands ------------------------------------------------------------------

proc load_system {args} {
    ::stub::record load_system {*}$args
    ::stub::arity load_system $args 1 1
    if {$::stub::loaded} {
        ::stub::fail "load_system: a system is already loaded"
    }
    if {[lindex $args 0] eq ""} {
        ::stub::fail "load_system: empty file name"
    }
    set ::stub::loaded 1
    foreach name $::stub::exports {
        set ::stub::interfaces($name) exported
    }
}

proc get_instances {args} {
    ::stub::record get_instances {*}$args
    ::stub::arity get_instances $args 0 0
    ::stub::needSystem get_instances
    return [lsort [array names ::stub::instances]]
}

proc get_instance_interfaces {args} {
    ::stub::record get_instance_interfaces {*}$args
    ::stub::arity get_instance_interfaces $args 1 1
    ::stub::needSystem get_instance_interfaces
    set inst [lindex $args 0]
    if {![info exists ::stub::instances($inst)]} {
        ::stub::fail "get_instance_interfaces: no instance $inst"
    }
    return $::stub::instances($inst)
}

proc get_interfaces {args} {
    ::stub::record get_interfaces {*}$args
    ::stub::arity get_interfaces $args 0 0
    ::stub::needSystem get_interfaces
    return $::stub::exports
}

proc get_connections {args} {
    ::stub::record get_connections {*}$args
    ::stub::arity get_connections $args 0 1
    ::stub::needSystem get_connections
    if {[llength $args] == 0} {
        return $::stub::connections
    }
    set element [lindex $args 0]
    set out {}
    foreach c $::stub::connections {
        foreach ep [split $c /] {
            if {$ep eq $element || [lindex [split $ep .] 0] eq $element} {
                lappend out $c
                break
            }
        }
    }
    return $out
}

proc add_instance {args} {
    ::stub::record add_instance {*}$args
    ::stub::arity add_instance $args 2 3
    ::stub::needSystem add_instance
    lassign $args name type
    if {[info exists ::stub::instances($name)]} {
        ::stub::fail "add_instance: instance $name exists already"
    }
    if {![info exists ::stub::components($type)]} {
        ::stub::fail "add_instance: no component $type on the IP search path"
    }
    set ::stub::instances($name) $::stub::components($type)
}

proc add_connection {args} {
    ::stub::record add_connection {*}$args
    ::stub::arity add_connection $args 2 3
    ::stub::needSystem add_connection
    lassign $args from to
    ::stub::endpoint add_connection $from
    ::stub::endpoint add_connection $to
    if {[lsearch -exact $::stub::connections $from/$to] >= 0} {
        ::stub::fail "add_connection: $from/$to exists already"
    }
    lappend ::stub::connections $from/$to
}

proc remove_connection {args} {
    ::stub::record remove_connection {*}$args
    ::stub::arity remove_connection $args 1 1
    ::stub::needSystem remove_connection
    set i [lsearch -exact $::stub::connections [lindex $args 0]]
    if {$i < 0} {
        ::stub::fail "remove_connection: no connection [lindex $args 0]"
    }
    set ::stub::connections [lreplace $::stub::connections $i $i]
}

proc set_connection_parameter_value {args} {
    ::stub::record set_connection_parameter_value {*}$args
    ::stub::arity set_connection_parameter_value $args 3 3
    ::stub::needSystem set_connection_parameter_value
    if {[lsearch -exact $::stub::connections [lindex $args 0]] < 0} {
        ::stub::fail "set_connection_parameter_value: no connection [lindex $args 0]"
    }
}

proc set_instance_parameter_value {args} {
    ::stub::record set_instance_parameter_value {*}$args
    ::stub::arity set_instance_parameter_value $args 3 3
    ::stub::needSystem set_instance_parameter_value
    if {![info exists ::stub::instances([lindex $args 0])]} {
        ::stub::fail "set_instance_parameter_value: no instance [lindex $args 0]"
    }
}

# Pro: an instance's .ip changed in place (load_component / set_component_parameter_value / save_component)
proc load_component {args} {
    ::stub::record load_component {*}$args
    ::stub::arity load_component $args 1 1
    ::stub::needSystem load_component
    if {![info exists ::stub::instances([lindex $args 0])]} {
        ::stub::fail "load_component: no instance [lindex $args 0]"
    }
    if {[info exists ::stub::component]} {
        ::stub::fail "load_component: component $::stub::component is loaded and not saved"
    }
    set ::stub::component [lindex $args 0]
}

proc set_component_parameter_value {args} {
    ::stub::record set_component_parameter_value {*}$args
    ::stub::arity set_component_parameter_value $args 2 2
    if {![info exists ::stub::component]} {
        ::stub::fail "set_component_parameter_value: no component loaded (load_component first)"
    }
    lappend ::stub::pending "$::stub::component/[lindex $args 0]=[lindex $args 1]"
}

proc save_component {args} {
    ::stub::record save_component {*}$args
    ::stub::arity save_component $args 0 0
    if {![info exists ::stub::component]} {
        ::stub::fail "save_component: no component loaded"
    }
    foreach change $::stub::pending {
        if {[info exists ::stub::reshape($change)]} {
            set ::stub::instances($::stub::component) $::stub::reshape($change)
            # connections to interfaces the instance no longer has go with them
            set kept {}
            foreach c $::stub::connections {
                set ok 1
                foreach ep [split $c /] {
                    lassign [split $ep .] inst iface
                    if {$inst eq $::stub::component && [lsearch -exact $::stub::instances($inst) $iface] < 0} {
                        set ok 0
                    }
                }
                if {$ok} {
                    lappend kept $c
                }
            }
            set ::stub::connections $kept
        }
    }
    set ::stub::pending {}
    unset ::stub::component
}

proc validate_system {args} {
    ::stub::record validate_system {*}$args
    ::stub::arity validate_system $args 0 0
    ::stub::needSystem validate_system
    return {}
}

proc save_system {args} {
    ::stub::record save_system {*}$args
    ::stub::arity save_system $args 0 1
    ::stub::needSystem save_system
}

# --- run ----------------------------------------------------------------------------------------------

if {$argc < 2 || $argc > 3} {
    puts stderr "usage: tclsh qsys_stub.tcl LOG SCRIPT \[FIXTURE\]"
    exit 64
}
set ::stub::log [open [lindex $argv 0] w]
fconfigure $::stub::log -buffering line -encoding utf-8 -translation lf
if {$argc == 3} {
    namespace eval ::stub [list source [lindex $argv 2]]
}
set ::stub::script [lindex $argv 1]
set argv {}
set argc 0
source $::stub::script
close $::stub::log
exit 0
