// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.verilog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The interface of one Verilog module as read from its header: name, parameters (with their
 * values) and ports (with widths evaluated from those values).
 *
 * <p>Instances are immutable. {@link #withParams(Map)} gives the module as instantiated with other
 * parameter values: the dependent parameters and every port range are evaluated again.
 */
public final class ImportedModule {

    private final String sourceName;
    private final String name;
    private final List<Param> params;
    private final List<Port> ports;
    private final Map<String, String> macros;

    /**
     * @param sourceName the file the module was read from (used in messages)
     * @param name       the module name
     * @param params     parameters in declaration order
     * @param ports      ports in port-list order
     * @param macros     the {@code `define}s of the file ({@code null} body: macro with arguments),
     *                   needed to evaluate ranges that use them
     */
    ImportedModule(String sourceName, String name, List<Param> params, List<Port> ports,
                   Map<String, String> macros) {
        this.sourceName = Objects.requireNonNull(sourceName, "sourceName");
        this.name = Objects.requireNonNull(name, "name");
        this.params = List.copyOf(params);
        this.ports = List.copyOf(ports);
        this.macros = Collections.unmodifiableMap(new LinkedHashMap<>(macros));
    }

    /** The source name given to {@link VerilogHeaders#parse}. */
    public String sourceName() {
        return sourceName;
    }

    /** The module name. */
    public String name() {
        return name;
    }

    /** Parameters and localparams in declaration order: header list first, then the body. */
    public List<Param> params() {
        return params;
    }

    /** Ports in the order of the module's port list. */
    public List<Port> ports() {
        return ports;
    }

    /** The parameter called {@code paramName}, if any. */
    public Optional<Param> param(String paramName) {
        return params.stream().filter(p -> p.name().equals(paramName)).findFirst();
    }

    /** The port called {@code portName}, if any. */
    public Optional<Port> port(String portName) {
        return ports.stream().filter(p -> p.name().equals(portName)).findFirst();
    }

    /**
     * This module with some parameters overridden, as by {@code #(.W(16))} on an instance: the
     * other parameters and all port widths are evaluated again from the new values.
     *
     * @param overrides parameter name to value
     * @return the re-evaluated module; this one is unchanged
     * @throws IllegalArgumentException if an override names no parameter of the module, names a
     *         localparam, has a null value, or if a port range cannot be evaluated with the new
     *         values (the message then starts with the port's {@code source:line:col})
     */
    public ImportedModule withParams(Map<String, Long> overrides) {
        for (Map.Entry<String, Long> e : overrides.entrySet()) {
            Param p = param(e.getKey()).orElseThrow(() -> new IllegalArgumentException(
                    "module " + name + " has no parameter '" + e.getKey() + "'"));
            if (p.local()) {
                throw new IllegalArgumentException("parameter '" + p.name() + "' of module " + name
                        + " is a localparam and cannot be overridden");
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException("override of '" + p.name() + "' has no value");
            }
        }
        List<String> names = new ArrayList<>();
        List<VerilogHeaderParser.ExpressionContext> exprs = new ArrayList<>();
        for (Param p : params) {
            names.add(p.name());
            exprs.add(new VerilogParsing(p.expr(), sourceName).parser().expressionOnly().expression());
        }
        Map<String, Long> values = evaluateParams(names, exprs, overrides, macros);
        List<Param> newParams = new ArrayList<>();
        for (Param p : params) {
            newParams.add(new Param(p.name(), p.expr(), values.get(p.name()), p.local()));
        }
        List<Port> newPorts = new ArrayList<>();
        ConstantEvaluator evaluator = new ConstantEvaluator(values, macros);
        for (Port p : ports) {
            if (p.rangeText().isEmpty()) {
                newPorts.add(p);
                continue;
            }
            VerilogHeaderParser.RangeContext range =
                    new VerilogParsing(p.rangeText(), sourceName).parser().rangeOnly().range();
            int width;
            try {
                width = evaluator.width(range);
            } catch (ConstantEvaluator.EvalException e) {
                throw new IllegalArgumentException(sourceName + ":" + p.line() + ":" + p.col()
                        + ": port '" + p.name() + "' range " + p.rangeText() + ": " + e.getMessage(), e);
            }
            newPorts.add(new Port(p.name(), p.direction(), width, p.rangeText(), p.signed(),
                    p.line(), p.col()));
        }
        return new ImportedModule(sourceName, name, newParams, newPorts, macros);
    }

    /**
     * Parameter values in declaration order: the override where there is one, otherwise the
     * default evaluated with the values before it; {@code null} where there is no integer value.
     */
    static Map<String, Long> evaluateParams(List<String> names,
                                            List<VerilogHeaderParser.ExpressionContext> exprs,
                                            Map<String, Long> overrides, Map<String, String> macros) {
        Map<String, Long> values = new LinkedHashMap<>();
        ConstantEvaluator evaluator = new ConstantEvaluator(values, macros);
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            Long value;
            if (overrides.containsKey(n)) {
                value = overrides.get(n);
            } else {
                try {
                    value = evaluator.visit(exprs.get(i));
                } catch (ConstantEvaluator.EvalException e) {
                    value = null;
                }
            }
            values.put(n, value);
        }
        return values;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ImportedModule m && m.sourceName.equals(sourceName) && m.name.equals(name)
                && m.params.equals(params) && m.ports.equals(ports) && m.macros.equals(macros);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sourceName, name, params, ports, macros);
    }

    @Override
    public String toString() {
        return "ImportedModule[name=" + name + ", params=" + params + ", ports=" + ports + "]";
    }
}
